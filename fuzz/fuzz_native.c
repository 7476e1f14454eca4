/* libFuzzer harness for the native strict reader, under AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * The reader is compiled into the harness (the same source as the extension) and registered as
 * agentbeats_spec.reading._native, so that the oracle (fuzz/oracle.py) judges it against the exact pure-Python reader:
 * a clean verdict must mean the exact reader finds nothing and builds the same data, and the offsets must place
 * every path where the exact locator does. Any disagreement aborts, which libFuzzer records as a crash.
 */
#include "../src/agentbeats_spec/reading/_native.c"

static PyObject *oracle_check;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    Py_InitializeEx(0);
    PyObject *module = PyInit__native();
    PyObject *modules = PyImport_GetModuleDict();
    if (module == NULL || PyDict_SetItemString(modules, "agentbeats_spec.reading._native", module) < 0) {
        PyErr_Print();
        abort();
    }
    PyObject *oracle = PyImport_ImportModule("oracle");
    if (oracle == NULL) {
        PyErr_Print();
        abort();
    }
    oracle_check = PyObject_GetAttrString(oracle, "check");
    if (oracle_check == NULL) {
        PyErr_Print();
        abort();
    }
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
