/* The native help of the ACTF per-step rules (rules/actf.py): which steps they must judge at all.
 *
 * A step is left out only when the rules certainly find nothing in it: its step_id increases, no list member
 * is {}, and each of started_at and finished_at is absent, null, not a string, empty, or a timestamp in the
 * forms checked completely here (YYYY-MM-DD, T or space, hh:mm:ss, up to six fraction digits, Z or +hh:mm/-hh:mm,
 * every field in range), finished_at not before started_at when both are. Any other step is returned, and the
 * Python rules judge it: they stay the reference and make every finding (where this module is not built, they
 * judge every step: rules/_actf_steps.py). The member names come from the rule's own table, never from here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* The places in the members tuple (rules/actf.py STEP_MEMBERS). */
enum { STEP_ID, LIST_A, LIST_B, HOLDER, NESTED_LIST, STARTED, FINISHED, MEMBER_COUNT };

static int two_digits(const char *p, int *out) {
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9') return 0;
    *out = (p[0] - '0') * 10 + (p[1] - '0');
    return 1;
}

/* Days from 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* 1 when the text is certainly a valid timestamp with a UTC offset, and its moment in UTC microseconds. */
static int aware_timestamp(const char *t, Py_ssize_t n, int64_t *moment) {
    int year_hi, year_lo, month, day, hour, minute, second;
    if (n < 20) return 0;
    if (!two_digits(t, &year_hi) || !two_digits(t + 2, &year_lo) || t[4] != '-' || !two_digits(t + 5, &month) ||
        t[7] != '-' || !two_digits(t + 8, &day) || (t[10] != 'T' && t[10] != ' ') || !two_digits(t + 11, &hour) ||
        t[13] != ':' || !two_digits(t + 14, &minute) || t[16] != ':' || !two_digits(t + 17, &second))
        return 0;
    int year = year_hi * 100 + year_lo;
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return 0;
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > days[month - 1] + (month == 2 && leap)) return 0;
    Py_ssize_t i = 19;
    int64_t micro = 0;
    if (i < n && t[i] == '.') {
        i++;
        Py_ssize_t start = i;
        while (i < n && t[i] >= '0' && t[i] <= '9' && i - start < 7) i++;
        if (i == start || i - start > 6) return 0; /* no digit, or more than microseconds: the rules decide */
        for (Py_ssize_t k = start; k < start + 6; k++) micro = micro * 10 + (k < i ? t[k] - '0' : 0);
    }
    int64_t offset = 0;
    if (n - i == 1 && t[i] == 'Z') {
        offset = 0;
    } else {
        int offset_hour, offset_minute;
        if (!(n - i == 6 && (t[i] == '+' || t[i] == '-') && two_digits(t + i + 1, &offset_hour) && t[i + 3] == ':' &&
              two_digits(t + i + 4, &offset_minute) && offset_hour <= 23 && offset_minute <= 59))
            return 0;
        offset = (t[i] == '-' ? -1 : 1) * (offset_hour * 60 + offset_minute) * 60;
    }
    int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
    *moment = seconds * 1000000 + micro;
    return 1;
}

/* 1: nothing to find in this member (*known set when it is a moment to compare); 0: the rules must look. */
static int quiet_timestamp(PyObject *value, int *known, int64_t *moment) {
    *known = 0;
    if (value == NULL || !PyUnicode_Check(value)) return 1;
    if (!PyUnicode_CheckExact(value)) return 0;
    if (PyUnicode_GET_LENGTH(value) == 0) return 1;
    if (!PyUnicode_IS_ASCII(value)) return 0;
    if (!aware_timestamp((const char *)PyUnicode_1BYTE_DATA(value), PyUnicode_GET_LENGTH(value), moment)) return 0;
    *known = 1;
    return 1;
}

/* 1 when the rules might read this member as {}: an empty dict, or any object of a type no JSON reader makes. */
static int maybe_empty_object(PyObject *value) {
    if (value == NULL || value == Py_None || PyList_CheckExact(value) || PyUnicode_CheckExact(value) ||
        PyLong_CheckExact(value) || PyFloat_CheckExact(value) || PyBool_Check(value))
        return 0;
    return !(PyDict_CheckExact(value) && PyDict_GET_SIZE(value) > 0);
}

/* steps_to_judge(steps, members) -> [index] of the steps the Python rules must see. members names, in this order,
 * what the rules read of a step (rules/actf.py STEP_MEMBERS): its id, its two list members, the object that holds
 * the third list and that list, and its start and finish. */
static PyObject *native_steps_to_judge(PyObject *module, PyObject *args) {
    PyObject *steps, *members;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &steps, &PyTuple_Type, &members)) return NULL;
    if (PyTuple_GET_SIZE(members) != MEMBER_COUNT) {
        PyErr_SetString(PyExc_ValueError, "members must name the seven members the rules read");
        return NULL;
    }
    PyObject *names[MEMBER_COUNT]; /* borrowed: the caller holds the tuple */
    for (Py_ssize_t k = 0; k < MEMBER_COUNT; k++) {
        names[k] = PyTuple_GET_ITEM(members, k);
        if (!PyUnicode_CheckExact(names[k])) {
            PyErr_SetString(PyExc_TypeError, "members must be str");
            return NULL;
        }
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    int have_previous = 0, judge_next = 0;
    long long previous = 0;
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(steps); index++) {
        PyObject *step = PyList_GET_ITEM(steps, index);
        if (!PyDict_Check(step)) continue;
        int judge = 0;
        if (!PyDict_CheckExact(step)) { /* not from a JSON reader: the rules judge it and the next step */
            judge_next = 1;
            have_previous = 0;
            goto add;
        }
        PyObject *step_id = PyDict_GetItemWithError(step, names[STEP_ID]);
        if (step_id == NULL && PyErr_Occurred()) goto fail;
        if (step_id != NULL && PyLong_Check(step_id) && !PyBool_Check(step_id)) {
            int overflow = 0;
            long long value = PyLong_CheckExact(step_id) ? PyLong_AsLongLongAndOverflow(step_id, &overflow) : 0;
            if (value == -1 && PyErr_Occurred()) goto fail;
            if (overflow || !PyLong_CheckExact(step_id)) {
                /* beyond 64 bits (or an int subclass): the rules judge it, and the next step with an id too */
                judge = 1;
                judge_next = 1;
                have_previous = 0;
            } else {
                if ((have_previous && value <= previous) || judge_next) judge = 1;
                judge_next = 0;
                previous = value;
                have_previous = 1;
            }
        }
        PyObject *value;
        for (int k = LIST_A; k <= LIST_B && !judge; k++) {
            value = PyDict_GetItemWithError(step, names[k]);
            if (value == NULL && PyErr_Occurred()) goto fail;
            judge = maybe_empty_object(value);
        }
        if (!judge) {
            PyObject *content = PyDict_GetItemWithError(step, names[HOLDER]);
            if (content == NULL && PyErr_Occurred()) goto fail;
            if (content != NULL && PyDict_Check(content)) {
                if (!PyDict_CheckExact(content)) {
                    judge = 1;
                } else {
                    value = PyDict_GetItemWithError(content, names[NESTED_LIST]);
                    if (value == NULL && PyErr_Occurred()) goto fail;
                    judge = maybe_empty_object(value);
                }
            }
        }
        if (!judge) {
            int started_known, finished_known;
            int64_t started = 0, finished = 0;
            PyObject *start = PyDict_GetItemWithError(step, names[STARTED]);
            if (start == NULL && PyErr_Occurred()) goto fail;
            PyObject *finish = PyDict_GetItemWithError(step, names[FINISHED]);
            if (finish == NULL && PyErr_Occurred()) goto fail;
            if (!quiet_timestamp(start, &started_known, &started) || !quiet_timestamp(finish, &finished_known, &finished))
                judge = 1;
            else if (started_known && finished_known && finished < started)
                judge = 1;
        }
        if (judge) {
        add:;
            PyObject *number = PyLong_FromSsize_t(index);
            if (number == NULL || PyList_Append(found, number) < 0) {
                Py_XDECREF(number);
                goto fail;
            }
            Py_DECREF(number);
        }
    }
    return found;
fail:
    Py_DECREF(found);
    return NULL;
}

static PyMethodDef actf_methods[] = {
    {"steps_to_judge", native_steps_to_judge, METH_VARARGS,
     "steps_to_judge(steps, members) -> [index] of the ACTF steps the Python rules must judge; the others have no "
     "finding."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef actf_module_def = {
    PyModuleDef_HEAD_INIT, "_actf_native", "The native pre-filter of the ACTF per-step rules (see _actf_native.c).",
    -1, actf_methods,
};

PyMODINIT_FUNC PyInit__actf_native(void) { return PyModule_Create(&actf_module_def); }
