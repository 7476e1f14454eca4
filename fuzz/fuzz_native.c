/* libFuzzer harness for the native strict reader and the ACTF rules' native step filter, under AddressSanitizer and
 * UndefinedBehaviorSanitizer.
 *
 * Both are compiled into the harness (the same sources as the extensions) and registered as
 * agentbeats_spec.reading._native and agentbeats_spec.rules._actf_native, so that the oracle (fuzz/oracle.py) judges
 * them: a clean verdict must mean the exact reader finds nothing and builds the same data, the offsets must place
 * every path where the exact locator does, and the step filter must leave the rules' findings unchanged. Any
 * disagreement aborts, which libFuzzer records as a crash.
 */
#include "../src/agentbeats_spec/reading/_native.c"
#include "../src/agentbeats_spec/rules/_actf_native.c"

static void register_module(const char *name, PyObject *module) {
    PyObject *modules = PyImport_GetModuleDict();
    if (module == NULL || PyDict_SetItemString(modules, name, module) < 0) {
        PyErr_Print();
        abort();
    }
}

static PyObject *oracle_check;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    Py_InitializeEx(0);
    register_module("agentbeats_spec.reading._native", PyInit__native());
    register_module("agentbeats_spec.rules._actf_native", PyInit__actf_native());
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
