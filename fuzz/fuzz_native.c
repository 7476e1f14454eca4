/* libFuzzer harness for the native strict reader, its folder reader and the ACTF rules' native step filter, under
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * All are compiled into the harness (the same sources as the extensions) and registered as
 * agentbeats_spec.reading._native and agentbeats_spec.rules._actf_native, so that the oracle (fuzz/oracle.py) judges
 * them: a clean verdict must mean the exact reader finds nothing and builds the same data, the offsets must place
 * every path where the exact locator does, the step filter must leave the rules' findings unchanged, and a folder
 * read natively must list what os.scandir lists and give each wanted file's bytes and clean parse. Any disagreement
 * aborts, which libFuzzer records as a crash.
 *
 * The folder reader's system calls go through the hooks below (the module _fuzzhooks, set by the oracle per input),
 * so that an input can also play what a real tree rarely shows: a file system without d_type (the fstatat path), a
 * listing raced by replacements (every entry said to be a regular file), reads returning a few bytes at a time, a
 * file that grows while read, a listing that fails part way.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { DTYPE_AS_IS = 0, DTYPE_UNKNOWN = 1, DTYPE_REGULAR = 2 };
static int hook_dtype;      /* what a listing says of an entry's type */
static long hook_chunk;     /* when > 0, read gives at most this many bytes a call */
static int hook_grow;       /* when set, a read that reaches the end of a file, asking for more, finds one byte more */
static long hook_fail_at;   /* when > 0, the listing call of this number (from 1) fails with EIO */
static long hook_readdirs;  /* listing calls (readdir, getdents64) since the hooks were set */

static int hook_fails(void) {
    hook_readdirs++;
    if (hook_fail_at > 0 && hook_readdirs == hook_fail_at) {
        errno = EIO;
        return 1;
    }
    return 0;
}

static unsigned char hooked_type(unsigned char type) {
    return hook_dtype == DTYPE_UNKNOWN ? DT_UNKNOWN : hook_dtype == DTYPE_REGULAR ? DT_REG : type;
}

static struct dirent *fuzz_readdir(DIR *dir) {
    if (hook_fails()) return NULL;
    struct dirent *entry = readdir(dir);
    if (entry != NULL) entry->d_type = hooked_type(entry->d_type);
    return entry;
}

#if defined(__linux__)
#include <sys/syscall.h>
/* The folder reader's getdents64 (reading/_native.c LIST_STEP), its records' types rewritten as readdir's are. */
static long fuzz_list_step(int fd, char *buffer, size_t size) {
    if (hook_fails()) return -1;
    long got = syscall(SYS_getdents64, fd, buffer, size);
    for (long at = 0; at < got;) {
        unsigned short length;
        memcpy(&length, buffer + at + 16, sizeof length); /* d_reclen, after d_ino and d_off */
        buffer[at + 18] = (char)hooked_type((unsigned char)buffer[at + 18]); /* d_type */
        at += length;
    }
    return got;
}
#define LIST_STEP(fd, buffer, size) fuzz_list_step((fd), (buffer), (size))
#endif

static ssize_t fuzz_read(int fd, void *buffer, size_t count) {
    size_t asked = count;
    if (hook_chunk > 0 && count > (size_t)hook_chunk) count = (size_t)hook_chunk;
    ssize_t got = read(fd, buffer, count);
    if (hook_grow && got >= 0 && (size_t)got < asked) { /* room for one byte more */
        struct stat st;
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && at >= st.st_size) {
            ((char *)buffer)[got] = ' ';
            return got + 1;
        }
    }
    return got;
}

/* Function-like, so that only the calls are redirected (a variable named read stays what it is). */
#define readdir(dir) fuzz_readdir(dir)
#define read(fd, buffer, count) fuzz_read(fd, buffer, count)
#include "../src/agentbeats_spec/reading/_native.c"
#undef read
#undef readdir
#include "../src/agentbeats_spec/rules/_actf_native.c"

static PyObject *hooks_set(PyObject *module, PyObject *args) {
    (void)module;
    if (!PyArg_ParseTuple(args, "ilil", &hook_dtype, &hook_chunk, &hook_grow, &hook_fail_at)) return NULL;
    hook_readdirs = 0;
    Py_RETURN_NONE;
}

/* advance(fd): the folder open as fd listed to its end through a duplicate, left there (as a listing by someone
 * else, which shares the offset, leaves it). */
static PyObject *hooks_advance(PyObject *module, PyObject *args) {
    (void)module;
    int fd;
    if (!PyArg_ParseTuple(args, "i", &fd)) return NULL;
    int copy = dup(fd);
    DIR *dir = copy < 0 ? NULL : fdopendir(copy);
    if (dir == NULL) {
        if (copy >= 0) close(copy);
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    while (readdir(dir) != NULL) {
    }
    closedir(dir);
    Py_RETURN_NONE;
}

static PyMethodDef hooks_methods[] = {
    {"advance", hooks_advance, METH_VARARGS, "advance(fd): list the folder fd to its end, leaving its offset there"},
    {"set", hooks_set, METH_VARARGS,
     "set(dtype, chunk, grow, fail_at): a listing's d_type (0 as is, 1 DT_UNKNOWN, 2 DT_REG), read's largest "
     "step (0: any), whether a read reaching a file's end finds one byte more, the listing call that fails (0: none)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef hooks_module = {PyModuleDef_HEAD_INIT, "_fuzzhooks", NULL, -1, hooks_methods};

static void register_module(const char *name, PyObject *module) {
    PyObject *modules = PyImport_GetModuleDict();
    if (module == NULL || PyDict_SetItemString(modules, name, module) < 0) {
        PyErr_Print();
        abort();
    }
}

static PyObject *oracle_check;
static PyObject *oracle_counts;

/* How many inputs of each mode ran (oracle.COUNTS), after libFuzzer's own final statistics. */
static void print_counts(void) {
    PyObject *key, *value;
    Py_ssize_t at = 0;
    while (oracle_counts != NULL && PyDict_Next(oracle_counts, &at, &key, &value))
        fprintf(stderr, "stat::%s_inputs: %ld\n", PyUnicode_AsUTF8(key), PyLong_AsLong(value));
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    Py_InitializeEx(0);
    register_module("agentbeats_spec.reading._native", PyInit__native());
    register_module("agentbeats_spec.rules._actf_native", PyInit__actf_native());
    register_module("_fuzzhooks", PyModule_Create(&hooks_module));
    PyObject *oracle = PyImport_ImportModule("oracle");
    if (oracle == NULL) {
        PyErr_Print();
        abort();
    }
    oracle_check = PyObject_GetAttrString(oracle, "check_input");
    oracle_counts = PyObject_GetAttrString(oracle, "COUNTS");
    if (oracle_check == NULL || oracle_counts == NULL || !PyDict_Check(oracle_counts)) {
        PyErr_Print();
        abort();
    }
    atexit(print_counts);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    PyObject *raw = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)size);
    if (raw == NULL) abort();
    PyObject *verdict = PyObject_CallFunctionObjArgs(oracle_check, raw, NULL);
    if (verdict == NULL) {
        PyErr_Print();
        abort();
    }
    Py_DECREF(verdict);
    Py_DECREF(raw);
    return 0;
}
