/* The native strict JSON reader: one pass gives a verdict, the Python objects and the container offsets.
 *
 * It never reports an issue. Whatever it is not certain is clean (a syntax error, a duplicate member, an
 * integer beyond 2**53, NaN, a lone surrogate, bad UTF-8, a BOM, a control character, deep nesting...) it
 * flags, and the caller sends that document to the exact reader in _json.py, which stays the reference and
 * says what and where. So a flag may be spurious (it only costs time); a missing flag would be a bug, which
 * is what the differential tests and the fuzzer look for.
 *
 * The offsets table holds, for every container in document order, the byte offsets of its opening and just
 * after its closing bracket: enough to find any member again without a second pass over the file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#if defined(_MSC_VER)
#include <intrin.h>
#endif

/* Clinger's fast path rounds once only where doubles are computed as doubles (not in x87 extended precision). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FAST_PATH_EXACT 1
#else
#define FAST_PATH_EXACT 0
#endif
#include <stdint.h>
#include <string.h>

#ifndef _WIN32 /* read_folder: POSIX descriptors; elsewhere the Python listing is the only one */
#define HAVE_READ_FOLDER 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#endif

/* One bit per reason; the first reason met ends the pass. */
enum {
    FLAG_SYNTAX = 1 << 0,
    FLAG_EMPTY = 1 << 1,
    FLAG_TRAILING = 1 << 2,
    FLAG_DEPTH = 1 << 3,
    FLAG_DUPLICATE = 1 << 4,
    FLAG_LARGE_INTEGER = 1 << 5,
    FLAG_NON_FINITE = 1 << 6,
    FLAG_CONTROL = 1 << 7,
    FLAG_UTF8 = 1 << 8,
    FLAG_BOM = 1 << 9,
    FLAG_SURROGATE = 1 << 10,
};

/* Deeper than this is flagged whatever the limit: the exact reader (and the C stack here) decide. */
#define NATIVE_MAX_DEPTH 1024

typedef struct {
    const unsigned char *start;
    const unsigned char *pos;
    const unsigned char *end;
    int max_depth;
    int depth;
    int flag;
    /* the member names whose values are integral floats (1.0, 1e0, -0.0), None for an array item or the root:
     * JSON Schema calls such a number an integer, our schemas do not (NULL: none read) */
    PyObject *integral_names;
    PyObject *member; /* the name of the member whose value is being read (borrowed), NULL in an array */
    /* scratch buffer for strings with escapes */
    char *scratch;
    Py_ssize_t scratch_size;
    /* container offsets: pairs (open, after close), kept in the bytes object returned (no copy at the end) */
    PyObject *table_bytes;
    uint64_t *table;
    Py_ssize_t table_len;  /* in pairs */
    Py_ssize_t table_cap;
    int record;
} Reader;

/* A small cache of ASCII member names: the same few names repeat across every step of a trajectory. */
#define KEY_CACHE_SIZE 2048
#define KEY_CACHE_MAX_LEN 48
static PyObject *key_cache[KEY_CACHE_SIZE];

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* The index of the lowest set bit of a non-zero word. */
static inline unsigned lowest_set_bit(uint64_t word) {
#if defined(_MSC_VER)
    unsigned long index;
    _BitScanForward64(&index, word);
    return (unsigned)index;
#else
    return (unsigned)__builtin_ctzll(word);
#endif
}

static inline int is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static inline void skip_ws(Reader *r) {
    while (r->pos < r->end && is_ws(*r->pos)) r->pos++;
}

static int grow_scratch(Reader *r, Py_ssize_t need) {
    if (need <= r->scratch_size) return 0;
    Py_ssize_t size = r->scratch_size ? r->scratch_size : 256;
    while (size < need) size *= 2;
    char *bigger = PyMem_Realloc(r->scratch, (size_t)size);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    r->scratch = bigger;
    r->scratch_size = size;
    return 0;
}

static Py_ssize_t table_open(Reader *r, Py_ssize_t offset) {
    if (!r->record) return 0;
    if (r->table_len == r->table_cap) {
        Py_ssize_t cap = r->table_cap ? r->table_cap * 2 : 64;
        Py_ssize_t bytes = cap * 2 * (Py_ssize_t)sizeof(uint64_t);
        if (r->table_bytes == NULL)
            r->table_bytes = PyBytes_FromStringAndSize(NULL, bytes);
        else if (_PyBytes_Resize(&r->table_bytes, bytes) < 0)
            r->table_bytes = NULL; /* released by _PyBytes_Resize */
        if (r->table_bytes == NULL) return -1;
        r->table = (uint64_t *)PyBytes_AS_STRING(r->table_bytes);
        r->table_cap = cap;
    }
    r->table[2 * r->table_len] = (uint64_t)offset;
    r->table[2 * r->table_len + 1] = 0;
    return r->table_len++;
}

static inline int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int read_hex4(const unsigned char *p, const unsigned char *end, unsigned int *out) {
    if (end - p < 4) return -1;
    unsigned int value = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(p[i]);
        if (h < 0) return -1;
        value = (value << 4) | (unsigned int)h;
    }
    *out = value;
    return 0;
}

static Py_ssize_t put_utf8(char *out, unsigned int cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static PyObject *decode_utf8(Reader *r, const char *data, Py_ssize_t size) {
    PyObject *text = PyUnicode_DecodeUTF8(data, size, "strict");
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        r->flag = FLAG_UTF8;
    }
    return text;
}

/* r->pos is just after the opening quote. Returns a new str, or NULL with r->flag set (or an exception). */
static PyObject *read_string(Reader *r, int is_key) {
    const unsigned char *begin = r->pos;
    const unsigned char *p = begin;
    const unsigned char *end = r->end;
    int ascii = 1;
    for (;;) {
        /* Eight bytes at a time while none is a quote, a backslash, a control character (or, for the ASCII test,
         * a byte >= 0x80): the long strings of trajectories are most of a file. */
        while (end - p >= 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            uint64_t quote = v ^ (ONES * '"'), backslash = v ^ (ONES * '\\');
            uint64_t stop = ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) | ((v - ONES * 0x20) & ~v);
            if (ascii) stop |= v;
            stop &= HIGHS;
            if (stop) { /* the lowest flagged byte is a true one (a borrow only flags bytes above it) */
                p += lowest_set_bit(stop) >> 3;
                break;
            }
            p += 8;
        }
        if (p >= end) break;
        unsigned char c = *p;
        if (c == '"' || c == '\\') break;
        if (c < 0x20) {
            r->flag = FLAG_CONTROL;
            return NULL;
        }
        if (c >= 0x80) ascii = 0;
        p++;
    }
    if (p >= end) {
        r->flag = FLAG_SYNTAX;
        return NULL;
    }
    if (*p == '"') {
        Py_ssize_t size = p - begin;
        r->pos = p + 1;
        if (ascii) {
            unsigned int slot = 0;
            if (is_key && size <= KEY_CACHE_MAX_LEN) {
                /* A cheap hash of the name's length and its first and last eight bytes (a collision only costs
                 * a miss: the name is compared in full below). */
                uint64_t head = 0, tail = 0;
                if (size >= 8) {
                    memcpy(&head, begin, 8);
                    memcpy(&tail, begin + size - 8, 8);
                } else if (size >= 4) {
                    uint32_t first, last;
                    memcpy(&first, begin, 4);
                    memcpy(&last, begin + size - 4, 4);
                    head = first;
                    tail = last;
                } else {
                    for (Py_ssize_t i = 0; i < size; i++) head = (head << 8) | begin[i];
                }
                uint64_t hash = (head * UINT64_C(0x9E3779B97F4A7C15)) ^ (tail * UINT64_C(0xC2B2AE3D27D4EB4F)) ^
                                (uint64_t)size;
                slot = (unsigned int)((hash ^ (hash >> 29)) % KEY_CACHE_SIZE);
                PyObject *cached = key_cache[slot];
                if (cached != NULL && PyUnicode_GET_LENGTH(cached) == size &&
                    memcmp(PyUnicode_1BYTE_DATA(cached), begin, (size_t)size) == 0) {
                    Py_INCREF(cached);
                    return cached;
                }
            }
            PyObject *text = PyUnicode_New(size, 127);
            if (text == NULL) return NULL;
            memcpy(PyUnicode_1BYTE_DATA(text), begin, (size_t)size);
            if (is_key && size <= KEY_CACHE_MAX_LEN) {
                Py_XSETREF(key_cache[slot], text);
                Py_INCREF(text);
            }
            return text;
        }
        return decode_utf8(r, (const char *)begin, size);
    }
    /* Escapes: build the UTF-8 of the string in the scratch buffer. Escapes never lengthen the text. */
    const unsigned char *close = p;
    while (close < end && *close != '"') {
        if (*close == '\\' && end - close < 2) break;
        close += (*close == '\\') ? 2 : 1;
    }
    if (close >= end) {
        r->flag = FLAG_SYNTAX;
        return NULL;
    }
    if (grow_scratch(r, close - begin + 1) < 0) return NULL;
    char *out = r->scratch;
    Py_ssize_t n = p - begin;
    memcpy(out, begin, (size_t)n);
    while (p < end) {
        unsigned char c = *p;
        if (c == '"') break;
        if (c < 0x20) {
            r->flag = FLAG_CONTROL;
            return NULL;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            p++;
            continue;
        }
        if (p + 1 >= end) {
            r->flag = FLAG_SYNTAX;
            return NULL;
        }
        unsigned char e = p[1];
        p += 2;
        switch (e) {
            case '"': out[n++] = '"'; break;
            case '\\': out[n++] = '\\'; break;
            case '/': out[n++] = '/'; break;
            case 'b': out[n++] = '\b'; break;
            case 'f': out[n++] = '\f'; break;
            case 'n': out[n++] = '\n'; break;
            case 'r': out[n++] = '\r'; break;
            case 't': out[n++] = '\t'; break;
            case 'u': {
                unsigned int cp;
                if (read_hex4(p, end, &cp) < 0) {
                    r->flag = FLAG_SYNTAX;
                    return NULL;
                }
                p += 4;
                if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    r->flag = FLAG_SURROGATE;
                    return NULL;
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned int low;
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || read_hex4(p + 2, end, &low) < 0 ||
                        low < 0xDC00 || low > 0xDFFF) {
                        r->flag = FLAG_SURROGATE;
                        return NULL;
                    }
                    p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                n += put_utf8(out + n, cp);
                break;
            }
            default:
                r->flag = FLAG_SYNTAX;
                return NULL;
        }
    }
    if (p >= end) {
        r->flag = FLAG_SYNTAX;
        return NULL;
    }
    r->pos = p + 1;
    return decode_utf8(r, out, n);
}

/* An integral float was read: note where (its member's name, or None). -1 with an exception set (memory). */
static int note_integral(Reader *r) {
    if (r->integral_names == NULL && (r->integral_names = PySet_New(NULL)) == NULL) return -1;
    return PySet_Add(r->integral_names, r->member != NULL ? r->member : Py_None);
}

static PyObject *read_number(Reader *r) {
    const unsigned char *begin = r->pos;
    const unsigned char *p = begin;
    const unsigned char *end = r->end;
    int is_float = 0;
    if (p < end && *p == '-') p++;
    if (p >= end || *p < '0' || *p > '9') {
        r->flag = (p < end && *p == 'I') ? FLAG_NON_FINITE : FLAG_SYNTAX;
        return NULL;
    }
    const unsigned char *digits = p;
    if (*p == '0') {
        p++;
    } else {
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    Py_ssize_t integer_digits = p - digits;
    if (p < end && *p == '.') {
        is_float = 1;
        p++;
        if (p >= end || *p < '0' || *p > '9') {
            r->flag = FLAG_SYNTAX;
            return NULL;
        }
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_float = 1;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') {
            r->flag = FLAG_SYNTAX;
            return NULL;
        }
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    r->pos = p;
    if (!is_float) {
        /* 2**53 has 16 digits: up to 15 are always exact, 17 or more never are. */
        if (integer_digits > 16) {
            r->flag = FLAG_LARGE_INTEGER;
            return NULL;
        }
        uint64_t value = 0;
        for (const unsigned char *d = digits; d < p; d++) value = value * 10 + (uint64_t)(*d - '0');
        if (value > (UINT64_C(1) << 53)) {
            r->flag = FLAG_LARGE_INTEGER;
            return NULL;
        }
        return PyLong_FromLongLong(*begin == '-' ? -(long long)value : (long long)value);
    }
    /* Clinger's fast path: at most 15 digits (below 2**53) scaled by at most 10**22, both exact, so one IEEE
     * operation rounds correctly; anything else goes to Python's own correctly rounded conversion. */
    static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    {
        uint64_t mantissa = 0;
        int count = 0, scale = 0;
        const unsigned char *d = digits;
        for (; d < p && *d >= '0' && *d <= '9'; d++, count++) mantissa = mantissa * 10 + (uint64_t)(*d - '0');
        if (d < p && *d == '.') {
            for (d++; d < p && *d >= '0' && *d <= '9'; d++, count++, scale--)
                mantissa = mantissa * 10 + (uint64_t)(*d - '0');
        }
        int exponent_ok = 1;
        if (d < p) { /* e or E */
            d++;
            int negative = 0, exponent = 0, exponent_digits = 0;
            if (*d == '+' || *d == '-') negative = *d++ == '-';
            for (; d < p && exponent_digits < 5; d++, exponent_digits++) exponent = exponent * 10 + (*d - '0');
            if (d < p) exponent_ok = 0; /* more than four digits: far outside the fast path (and an int) */
            scale += negative ? -exponent : exponent;
        }
        if (FAST_PATH_EXACT && count <= 15 && exponent_ok && scale >= -22 && scale <= 22) {
            double value = (double)mantissa;
            value = scale < 0 ? value / powers[-scale] : value * powers[scale];
            if (*begin == '-') value = -value;
            if (value == floor(value) && note_integral(r) < 0) return NULL;
            return PyFloat_FromDouble(value);
        }
    }
    Py_ssize_t size = p - begin;
    char small[64];
    char *text = small;
    if (size >= (Py_ssize_t)sizeof(small)) {
        if (grow_scratch(r, size + 1) < 0) return NULL;
        text = r->scratch;
    }
    memcpy(text, begin, (size_t)size);
    text[size] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) return NULL;
    if (!isfinite(value)) {
        r->flag = FLAG_NON_FINITE;
        return NULL;
    }
    if (value == floor(value) && note_integral(r) < 0) return NULL;
    return PyFloat_FromDouble(value);
}

static int match_literal(Reader *r, const char *word, Py_ssize_t size) {
    if (r->end - r->pos < size || memcmp(r->pos, word, (size_t)size) != 0) return 0;
    r->pos += size;
    return 1;
}

static PyObject *read_value(Reader *r);

static PyObject *read_container(Reader *r, int is_object) {
    if (++r->depth > r->max_depth || r->depth > NATIVE_MAX_DEPTH) {
        r->flag = FLAG_DEPTH;
        return NULL;
    }
    Py_ssize_t slot = table_open(r, r->pos - r->start);
    if (slot < 0) return NULL;
    r->pos++;
    PyObject *container = is_object ? PyDict_New() : PyList_New(0);
    if (container == NULL) return NULL;
    skip_ws(r);
    if (r->pos < r->end && *r->pos == (is_object ? '}' : ']')) {
        r->pos++;
        goto closed;
    }
    for (;;) {
        if (is_object) {
            if (r->pos >= r->end || *r->pos != '"') {
                r->flag = FLAG_SYNTAX;
                goto fail;
            }
            r->pos++;
            PyObject *key = read_string(r, 1);
            if (key == NULL) goto fail;
            skip_ws(r);
            if (r->pos >= r->end || *r->pos != ':') {
                Py_DECREF(key);
                r->flag = FLAG_SYNTAX;
                goto fail;
            }
            r->pos++;
            skip_ws(r);
            r->member = key;
            PyObject *value = read_value(r);
            if (value == NULL) {
                Py_DECREF(key);
                goto fail;
            }
            Py_ssize_t before = PyDict_GET_SIZE(container);
            int failed = PyDict_SetItem(container, key, value);
            Py_DECREF(key);
            Py_DECREF(value);
            if (failed < 0) goto fail;
            if (PyDict_GET_SIZE(container) == before) {
                r->flag = FLAG_DUPLICATE;
                goto fail;
            }
        } else {
            r->member = NULL;
            PyObject *value = read_value(r);
            if (value == NULL) goto fail;
            int failed = PyList_Append(container, value);
            Py_DECREF(value);
            if (failed < 0) goto fail;
        }
        skip_ws(r);
        if (r->pos >= r->end) {
            r->flag = FLAG_SYNTAX;
            goto fail;
        }
        if (*r->pos == ',') {
            r->pos++;
            skip_ws(r);
            continue;
        }
        if (*r->pos == (is_object ? '}' : ']')) {
            r->pos++;
            break;
        }
        r->flag = FLAG_SYNTAX;
        goto fail;
    }
closed:
    if (r->record) r->table[2 * slot + 1] = (uint64_t)(r->pos - r->start);
    r->depth--;
    return container;
fail:
    Py_DECREF(container);
    return NULL;
}

static PyObject *read_value(Reader *r) {
    if (r->pos >= r->end) {
        r->flag = FLAG_SYNTAX;
        return NULL;
    }
    switch (*r->pos) {
        case '{': return read_container(r, 1);
        case '[': return read_container(r, 0);
        case '"':
            r->pos++;
            return read_string(r, 0);
        case 't':
            if (match_literal(r, "true", 4)) Py_RETURN_TRUE;
            break;
        case 'f':
            if (match_literal(r, "false", 5)) Py_RETURN_FALSE;
            break;
        case 'n':
            if (match_literal(r, "null", 4)) Py_RETURN_NONE;
            break;
        case 'N':
        case 'I':
            r->flag = FLAG_NON_FINITE;
            return NULL;
        default:
            if (*r->pos == '-' || (*r->pos >= '0' && *r->pos <= '9')) return read_number(r);
    }
    r->flag = FLAG_SYNTAX;
    return NULL;
}

static void reader_free(Reader *r) {
    PyMem_Free(r->scratch);
    Py_CLEAR(r->integral_names);
    Py_CLEAR(r->table_bytes);
    r->table = NULL;
}

/* One document read from ``size`` bytes at ``buf``: (data, 0, table, integral) for a clean document, (None, flag,
 * None, 0) otherwise; NULL with an exception set (memory). ``record``: keep the offsets table (else None). */
static PyObject *parse_document(const unsigned char *buf, Py_ssize_t size, int max_depth, int record) {
    Reader r;
    memset(&r, 0, sizeof(r));
    r.start = buf;
    r.pos = buf;
    r.end = buf + size;
    r.max_depth = max_depth;
    r.record = record;
    PyObject *data = NULL;
    PyObject *result = NULL;
    if (size >= 3 && memcmp(r.start, "\xEF\xBB\xBF", 3) == 0) {
        r.flag = FLAG_BOM;
    } else {
        skip_ws(&r);
        if (r.pos >= r.end) {
            r.flag = FLAG_EMPTY;
        } else {
            data = read_value(&r);
            if (data != NULL) {
                skip_ws(&r);
                if (r.pos != r.end) {
                    r.flag = FLAG_TRAILING;
                    Py_CLEAR(data);
                }
            } else if (r.flag == 0) {
                goto done; /* an exception (memory) */
            }
        }
    }
    if (r.flag != 0) {
        result = Py_BuildValue("(OiOi)", Py_None, r.flag, Py_None, 0);
    } else {
        PyObject *table = Py_NewRef(Py_None);
        if (record) { /* the table itself, cut to its length: the offsets are never copied */
            Py_SETREF(table, r.table_bytes != NULL ? r.table_bytes : PyBytes_FromStringAndSize(NULL, 0));
            r.table_bytes = NULL;
            r.table = NULL;
            if (table != NULL && _PyBytes_Resize(&table, r.table_len * 2 * (Py_ssize_t)sizeof(uint64_t)) < 0)
                table = NULL;
        }
        if (table != NULL) {
            /* integral: the set of member names (None: an array item or the root), or 0 when there is none */
            if (r.integral_names != NULL)
                result = Py_BuildValue("(OiOO)", data, 0, table, r.integral_names);
            else
                result = Py_BuildValue("(OiOi)", data, 0, table, 0);
            Py_DECREF(table);
        }
    }
done:
    Py_XDECREF(data);
    reader_free(&r);
    return result;
}

/* read(raw, max_depth, offsets) -> (data, 0, table, integral) for a clean document, (None, flag, None, 0)
 * otherwise; integral is 0, or when the document holds floats with no fractional part (1.0, 1e0, -0.0), the only
 * numbers on which an "integer" of JSON Schema and of our schemas disagree, the set of the names of the members
 * whose values they are (None for one that is an array item or the whole document). */
static PyObject *native_read(PyObject *module, PyObject *args) {
    Py_buffer view;
    int max_depth;
    int record = 1;
    if (!PyArg_ParseTuple(args, "y*i|p", &view, &max_depth, &record)) return NULL;
    PyObject *result = parse_document(view.buf, view.len, max_depth, record);
    PyBuffer_Release(&view);
    return result;
}

/* ---- A folder's names, and the JSON files wanted there read and parsed, in one call ---- */
#ifdef HAVE_READ_FOLDER

enum { ENTRY_FILE = 0, ENTRY_FOLDER = 1, ENTRY_LINK = 2, ENTRY_OTHER = 3 };

/* The file ``name`` in the folder ``folder`` when it is a regular file no larger than ``max_size`` holding a clean
 * document: (raw, data, table, integral). Py_None for anything else (it could not be opened, it is not a regular
 * file now, it is too large, it changed size while read, the reader flags it): the caller reads it again the
 * ordinary way, which says what is wrong. NULL with an exception set (memory). Opened as reading/_bounded opens a
 * file: in its folder's descriptor, never through a link, never blocking on a FIFO. */
static PyObject *read_entry(int folder, const char *name, Py_ssize_t max_size, int max_depth) {
    int fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) Py_RETURN_NONE;
    struct stat st;
    PyObject *raw = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > max_size || st.st_size < 0) goto fallback;
    /* One byte more than fstat said, which shows a file that grew: a read that stops short of what it asked for at
     * the size fstat gave has met the file's end, so a file read whole takes one read, not a read and a second
     * one that finds the end. A read that stops short elsewhere is read on. */
    Py_ssize_t size = (Py_ssize_t)st.st_size;
    raw = PyBytes_FromStringAndSize(NULL, size + 1);
    if (raw == NULL) {
        close(fd);
        return NULL;
    }
    char *buffer = PyBytes_AS_STRING(raw);
    Py_ssize_t got = 0;
    for (;;) {
        size_t asked = (size_t)(size + 1 - got);
        ssize_t step = read(fd, buffer + got, asked);
        if (step < 0) goto fallback; /* interrupted, failed: the ordinary read says what it finds */
        got += step;
        if (step == 0 || got > size || (got == size && (size_t)step < asked)) break;
    }
    if (got != size) goto fallback; /* shrunk, or grew since fstat: the ordinary read says what it finds */
    close(fd);
    fd = -1;
    if (_PyBytes_Resize(&raw, size) < 0) return NULL; /* in place: the byte more is dropped */
    buffer = PyBytes_AS_STRING(raw);
    PyObject *parsed = parse_document((const unsigned char *)buffer, got, max_depth, 1);
    if (parsed == NULL) {
        Py_DECREF(raw);
        return NULL;
    }
    PyObject *result;
    if (PyTuple_GET_ITEM(parsed, 0) == Py_None && PyLong_AsLong(PyTuple_GET_ITEM(parsed, 1)) != 0) {
        result = Py_NewRef(Py_None); /* flagged: the exact reader must see it */
    } else {
        result = PyTuple_Pack(4, raw, PyTuple_GET_ITEM(parsed, 0), PyTuple_GET_ITEM(parsed, 2),
                              PyTuple_GET_ITEM(parsed, 3));
    }
    Py_DECREF(parsed);
    Py_DECREF(raw);
    return result;
fallback:
    Py_XDECREF(raw);
    if (fd >= 0) close(fd);
    Py_RETURN_NONE;
}

/* The next entry of a readdir listing other than "." and "..": 1 (and *entry), 0 at its end, -1 when the listing
 * failed. */
static int next_dirent(DIR *dir, struct dirent **entry) {
    for (;;) {
        errno = 0;
        *entry = readdir(dir);
        if (*entry == NULL) return errno != 0 ? -1 : 0;
        const char *name = (*entry)->d_name;
        if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))) return 1;
    }
}

/* A folder's listing, entry by entry. On Linux it is read by getdents64 on the folder's own descriptor (a
 * listing of a few names is two calls), which moves that descriptor's offset: a listing starts by putting it at
 * the beginning (unless the descriptor was just opened) and leaves it there, as os.scandir leaves a descriptor.
 * Elsewhere, readdir on a duplicate (fdopendir closes what it is given). */
#if defined(__linux__)
#ifndef LIST_STEP /* the fuzz harness puts its hooks here */
#define LIST_STEP(fd, buffer, size) syscall(SYS_getdents64, (fd), (buffer), (size))
#endif
#define LISTING_BUFFER 8192
typedef struct {
    int fd;
    long at, filled;
    union { /* aligned for the records' 8-byte members */
        uint64_t align;
        char bytes[LISTING_BUFFER];
    } buffer;
} Listing;
struct listed_record { /* the kernel's struct linux_dirent64 */
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int listing_open(Listing *listing, int folder, int fresh) {
    listing->fd = folder;
    listing->at = listing->filled = 0;
    return fresh || lseek(folder, 0, SEEK_SET) == 0 ? 0 : -1;
}

static void listing_close(Listing *listing) { (void)lseek(listing->fd, 0, SEEK_SET); }

/* The next entry other than "." and "..": 1 (and its name and type), 0 at the end, -1 when the listing failed. */
static int next_entry(Listing *listing, const char **name, unsigned char *type) {
    for (;;) {
        if (listing->at >= listing->filled) {
            long got = (long)LIST_STEP(listing->fd, listing->buffer.bytes, LISTING_BUFFER);
            if (got <= 0) return got == 0 ? 0 : -1;
            listing->filled = got;
            listing->at = 0;
        }
        struct listed_record *record = (struct listed_record *)(listing->buffer.bytes + listing->at);
        listing->at += record->d_reclen;
        const char *found = record->d_name;
        if (!(found[0] == '.' && (found[1] == 0 || (found[1] == '.' && found[2] == 0)))) {
            *name = found;
            *type = record->d_type;
            return 1;
        }
    }
}
#else
typedef struct {
    DIR *dir;
} Listing;

static int listing_open(Listing *listing, int folder, int fresh) {
    (void)fresh;
    int copy = dup(folder); /* closedir closes it: the caller's descriptor stays open */
    if (copy < 0) return -1;
    listing->dir = fdopendir(copy);
    if (listing->dir == NULL) {
        close(copy);
        return -1;
    }
    rewinddir(listing->dir); /* the duplicate shares the caller's offset, which an earlier listing may have moved */
    return 0;
}

static void listing_close(Listing *listing) {
    rewinddir(listing->dir); /* as os.scandir leaves a descriptor: the next listing of it starts at the beginning */
    closedir(listing->dir);
}

static int next_entry(Listing *listing, const char **name, unsigned char *type) {
    struct dirent *entry;
    int listed_one = next_dirent(listing->dir, &entry);
    if (listed_one == 1) {
        *name = entry->d_name;
        *type = entry->d_type;
    }
    return listed_one;
}
#endif

/* What read_folder reads in one folder, as the caller's ``plan`` tuple says: (names, suffix, folders), where
 * names is a frozenset of file names, suffix a str or None, and folders a tuple of (name, is_prefix, plan): the
 * sub-folders listed and read in the same call (by exact name, or by a prefix of the name). */
typedef struct {
    PyObject *names;
    const char *suffix;
    Py_ssize_t suffix_len;
    PyObject *folders;
    Py_ssize_t max_size;
    int max_depth;
} Plan;

/* Plans nest only as deep as the caller wrote them: a tree cannot make the call recurse further. The sub-folders
 * opened by one call stay open (the caller keeps them for the rest of its unit): at most this many, the rest are
 * left to the caller's ordinary listing. */
#define MAX_PLAN_DEPTH 8
#define MAX_OPENED_FOLDERS 256

static int parse_plan(PyObject *plan, Plan *out, Py_ssize_t max_size, int max_depth) {
    out->max_size = max_size;
    out->max_depth = max_depth;
    PyObject *suffix;
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != 3) {
        PyErr_SetString(PyExc_TypeError, "a plan is (names, suffix, folders)");
        return -1;
    }
    out->names = PyTuple_GET_ITEM(plan, 0);
    suffix = PyTuple_GET_ITEM(plan, 1);
    out->folders = PyTuple_GET_ITEM(plan, 2);
    if (!PyFrozenSet_Check(out->names) || !PyTuple_Check(out->folders) || (suffix != Py_None && !PyUnicode_Check(suffix))) {
        PyErr_SetString(PyExc_TypeError, "a plan is (frozenset of names, str or None, tuple of sub-plans)");
        return -1;
    }
    out->suffix = NULL;
    out->suffix_len = 0;
    if (suffix != Py_None && (out->suffix = PyUnicode_AsUTF8AndSize(suffix, &out->suffix_len)) == NULL) return -1;
    return 0;
}

static int wanted_entry(const char *name, size_t length, const Plan *plan, PyObject *decoded) {
    if (plan->suffix != NULL && length >= (size_t)plan->suffix_len &&
        memcmp(name + length - plan->suffix_len, plan->suffix, (size_t)plan->suffix_len) == 0)
        return 1;
    return PySet_Contains(plan->names, decoded);
}

/* The sub-plan for a folder entry named ``decoded``: a borrowed tuple, Py_None, or NULL with an exception. */
static PyObject *sub_plan(const Plan *plan, PyObject *decoded) {
    Py_ssize_t count = PyTuple_GET_SIZE(plan->folders);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(plan->folders, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(item, 0))) {
            PyErr_SetString(PyExc_TypeError, "a folder of a plan is (name, is_prefix, plan)");
            return NULL;
        }
        PyObject *name = PyTuple_GET_ITEM(item, 0);
        int prefix = PyObject_IsTrue(PyTuple_GET_ITEM(item, 1));
        int match = prefix ? PyUnicode_Tailmatch(decoded, name, 0, PY_SSIZE_T_MAX, -1)
                           : PyUnicode_Compare(decoded, name) == 0;
        if (match < 0 || PyErr_Occurred()) return NULL;
        if (match) return PyTuple_GET_ITEM(item, 2);
    }
    return Py_None;
}

static PyObject *list_folder(int folder, const Plan *plan, int depth, int *opened, int fresh);

static void close_opened(PyObject *found);

/* The sub-folder ``name`` of ``folder`` by ``plan``: (its descriptor, its entries), opened as reading/_bounded
 * opens a folder below a unit (in its parent's descriptor, never through a link) and left open for the caller;
 * Py_None when it cannot be opened or listed. */
static PyObject *list_sub_folder(int folder, const char *name, PyObject *plan_tuple, const Plan *parent, int depth,
                                 int *opened) {
    if (depth >= MAX_PLAN_DEPTH || *opened >= MAX_OPENED_FOLDERS) Py_RETURN_NONE;
    Plan plan;
    if (parse_plan(plan_tuple, &plan, parent->max_size, parent->max_depth) < 0) return NULL;
    int fd = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) Py_RETURN_NONE;
    ++*opened;
    PyObject *found = list_folder(fd, &plan, depth + 1, opened, 1);
    if (found == NULL || found == Py_None) {
        close(fd);
        return found;
    }
    PyObject *result = Py_BuildValue("(iO)", fd, found);
    if (result == NULL) {
        close_opened(found);
        close(fd);
    }
    Py_DECREF(found);
    return result;
}

/* The entries of the folder open as ``folder``, by ``plan``: [(name, type, read)], unsorted; Py_None when it cannot
 * be listed (the caller lists it the ordinary way, which reports why); NULL with an exception set. ``fresh``: the
 * descriptor was just opened by this call (its offset is the beginning). */
static PyObject *list_folder(int folder, const Plan *plan, int depth, int *opened, int fresh) {
    Listing listing;
    if (listing_open(&listing, folder, fresh) < 0) Py_RETURN_NONE;
    PyObject *found = PyList_New(0);
    if (found == NULL) goto fail;
    for (;;) {
        const char *name;
        unsigned char d_type;
        int listed_one = next_entry(&listing, &name, &d_type);
        if (listed_one == 0) break;
        if (listed_one < 0) { /* the listing failed part way: the ordinary listing says why */
            listing_close(&listing);
            close_opened(found); /* the sub-folders it opened so far */
            Py_DECREF(found);
            Py_RETURN_NONE;
        }
        if (d_type == DT_UNKNOWN) {
            struct stat st;
            /* gone since, or cannot be asked: os.scandir's entry then says neither link, folder nor file */
            if (fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) != 0) st.st_mode = 0;
            d_type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : 0;
        }
        int type = d_type == DT_REG   ? ENTRY_FILE
                   : d_type == DT_DIR ? ENTRY_FOLDER
                   : d_type == DT_LNK ? ENTRY_LINK
                                      : ENTRY_OTHER;
        size_t length = strlen(name);
        PyObject *decoded = PyUnicode_DecodeFSDefaultAndSize(name, (Py_ssize_t)length);
        if (decoded == NULL) goto fail;
        PyObject *read;
        if (type == ENTRY_FILE) {
            int wanted = wanted_entry(name, length, plan, decoded);
            read = wanted < 0 ? NULL : wanted ? read_entry(folder, name, plan->max_size, plan->max_depth)
                                              : Py_NewRef(Py_None);
        } else if (type == ENTRY_FOLDER) {
            PyObject *sub = sub_plan(plan, decoded);
            read = sub == NULL ? NULL : sub == Py_None ? Py_NewRef(Py_None)
                                                       : list_sub_folder(folder, name, sub, plan, depth, opened);
        } else {
            read = Py_NewRef(Py_None);
        }
        if (read == NULL) {
            Py_DECREF(decoded);
            goto fail;
        }
        PyObject *item = Py_BuildValue("(NiO)", decoded, type, read);
        if (item == NULL || PyList_Append(found, item) < 0) {
            Py_XDECREF(item);
            close_opened(read);
            Py_DECREF(read);
            goto fail;
        }
        Py_DECREF(read);
        Py_DECREF(item);
    }
    listing_close(&listing);
    return found;
fail:
    listing_close(&listing);
    close_opened(found);
    Py_XDECREF(found);
    return NULL;
}

/* On failure, the descriptors of the sub-folders a listing holds (a (fd, entries) pair) are closed: the caller
 * never sees them. */
static void close_opened(PyObject *found) {
    if (found == NULL) return;
    if (PyTuple_Check(found) && PyTuple_GET_SIZE(found) == 2 && PyLong_Check(PyTuple_GET_ITEM(found, 0))) {
        close((int)PyLong_AsLong(PyTuple_GET_ITEM(found, 0)));
        close_opened(PyTuple_GET_ITEM(found, 1));
    } else if (PyList_Check(found)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(found); i++) {
            PyObject *item = PyList_GET_ITEM(found, i);
            if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 3) close_opened(PyTuple_GET_ITEM(item, 2));
        }
    }
}

/* ---- The lstat of everything below a folder, for the verdict cache's key ---- */

typedef struct {
    char *data;
    size_t length, capacity;
} Buffer;

static int buffer_add(Buffer *buffer, const char *text, size_t length) {
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        char *bigger = PyMem_Realloc(buffer->data, capacity);
        if (bigger == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        buffer->data = bigger;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, text, length);
    buffer->length += length;
    return 0;
}

static long long nanoseconds(struct timespec moment) { return (long long)moment.tv_sec * 1000000000LL + moment.tv_nsec; }

#ifdef __APPLE__
#define MTIME(info) ((info).st_mtimespec)
#define CTIME(info) ((info).st_ctimespec)
#else
#define MTIME(info) ((info).st_mtim)
#define CTIME(info) ((info).st_ctim)
#endif

/* One line of the survey: "<relative>\0<mode>\0<size>\0<inode>\0<device>\0<mtime ns>\0<ctime ns>\n", as
 * units/_cache.survey writes it from os.lstat. */
static int survey_line(Buffer *lines, const char *relative, size_t length, const struct stat *info,
                       long long *size, long long *newest) {
    char numbers[160];
    long long modified = nanoseconds(MTIME(*info)), changed = nanoseconds(CTIME(*info));
    int written = snprintf(numbers, sizeof(numbers), "%c%u%c%lld%c%llu%c%llu%c%lld%c%lld\n", 0, (unsigned)info->st_mode,
                           0, (long long)info->st_size, 0, (unsigned long long)info->st_ino, 0,
                           (unsigned long long)info->st_dev, 0, modified, 0, changed);
    if (written < 0 || (size_t)written >= sizeof(numbers)) {
        PyErr_SetString(PyExc_OverflowError, "a survey line");
        return -1;
    }
    *size += (long long)info->st_size;
    if (modified > *newest) *newest = modified;
    if (changed > *newest) *newest = changed;
    if (buffer_add(lines, relative, length) < 0) return -1;
    return buffer_add(lines, numbers, (size_t)written);
}

/* The entries of the folder open as ``folder``, each (decoded name, its bytes) sorted as Python sorts the decoded
 * names, with their lstat in ``infos`` (same order). None (Py_None) when it cannot be listed. */
static PyObject *sorted_entries(int folder, struct stat **infos) {
    int listed = dup(folder);
    if (listed < 0) Py_RETURN_NONE;
    DIR *dir = fdopendir(listed);
    if (dir == NULL) {
        close(listed);
        Py_RETURN_NONE;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        closedir(dir);
        return NULL;
    }
    for (;;) {
        struct dirent *entry;
        int listed_one = next_dirent(dir, &entry);
        if (listed_one == 0) break;
        if (listed_one < 0) {
            closedir(dir);
            Py_DECREF(found);
            Py_RETURN_NONE;
        }
        const char *name = entry->d_name;
        size_t length = strlen(name);
        PyObject *item = Py_BuildValue("(Ny#)", PyUnicode_DecodeFSDefaultAndSize(name, (Py_ssize_t)length), name,
                                       (Py_ssize_t)length);
        if (item == NULL || PyList_Append(found, item) < 0) {
            Py_XDECREF(item);
            closedir(dir);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(item);
    }
    closedir(dir);
    if (PyList_Sort(found) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(found);
    *infos = PyMem_Malloc(sizeof(struct stat) * (size_t)(count ? count : 1));
    if (*infos == NULL) {
        Py_DECREF(found);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *name = PyBytes_AS_STRING(PyTuple_GET_ITEM(PyList_GET_ITEM(found, i), 1));
        if (fstatat(folder, name, &(*infos)[i], AT_SYMLINK_NOFOLLOW) != 0) { /* gone since: as lstat, a failure */
            PyMem_Free(*infos);
            *infos = NULL;
            Py_DECREF(found);
            Py_RETURN_NONE;
        }
    }
    return found;
}

/* survey(path) -> (lines, size, newest) or None: what units/_cache.survey makes of ``path`` and everything below it
 * (links not followed), sorted by name, folder by folder: the lines it hashes, the bytes it sums, the newest of
 * every modification and change time. None when any of it cannot be read (a file, a folder that cannot be listed,
 * an entry gone while listed): the caller's own survey then says the same. */
static PyObject *native_survey(PyObject *module, PyObject *args) {
    PyObject *path_object;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_object)) return NULL;
    const char *top = PyBytes_AS_STRING(path_object);
    Buffer lines = {NULL, 0, 0};
    long long size = 0, newest = 0;
    PyObject *pending = NULL, *result = NULL;
    struct stat info;
    int top_fd = -1;
    if (lstat(top, &info) != 0 || !S_ISDIR(info.st_mode)) goto none; /* a file: no survey (the caller's neither) */
    /* never through a link swapped in since the lstat: what is opened must be the folder lstat saw */
    top_fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat opened;
    if (top_fd < 0 || fstat(top_fd, &opened) != 0 || opened.st_ino != info.st_ino || opened.st_dev != info.st_dev)
        goto none;
    if (survey_line(&lines, "", 0, &info, &size, &newest) < 0) goto fail;
    pending = Py_BuildValue("[y]", ""); /* relative names (bytes, "" for the top) of folders to list, next last */
    if (pending == NULL) goto fail;
    while (PyList_GET_SIZE(pending) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(pending) - 1;
        PyObject *relative = Py_NewRef(PyList_GET_ITEM(pending, last));
        if (PyList_SetSlice(pending, last, last + 1, NULL) < 0) {
            Py_DECREF(relative);
            goto fail;
        }
        const char *spelled = PyBytes_AS_STRING(relative);
        int folder = spelled[0] ? openat(top_fd, spelled + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                : dup(top_fd);
        if (folder < 0) {
            Py_DECREF(relative);
            goto none;
        }
        struct stat *infos = NULL;
        PyObject *found = sorted_entries(folder, &infos);
        close(folder);
        if (found == NULL || found == Py_None) {
            Py_DECREF(relative);
            if (found == NULL) goto fail;
            Py_DECREF(found);
            goto none;
        }
        Py_ssize_t count = PyList_GET_SIZE(found), below_start = PyList_GET_SIZE(pending);
        int failed = 0;
        for (Py_ssize_t i = 0; i < count && !failed; i++) {
            PyObject *name = PyTuple_GET_ITEM(PyList_GET_ITEM(found, i), 1);
            PyObject *child = PyBytes_FromFormat("%s/%s", spelled, PyBytes_AS_STRING(name));
            if (child == NULL) {
                failed = 1;
                break;
            }
            if (survey_line(&lines, PyBytes_AS_STRING(child), (size_t)PyBytes_GET_SIZE(child), &infos[i], &size,
                            &newest) < 0 ||
                (S_ISDIR(infos[i].st_mode) && PyList_Append(pending, child) < 0))
                failed = 1;
            Py_DECREF(child);
        }
        PyMem_Free(infos);
        Py_DECREF(found);
        Py_DECREF(relative);
        if (failed) goto fail;
        /* the sub-folders were appended in order: reversed, the first is listed next, as the caller's walk does */
        PyObject *below = PyList_GetSlice(pending, below_start, PyList_GET_SIZE(pending));
        if (below == NULL || PyList_Reverse(below) < 0 ||
            PyList_SetSlice(pending, below_start, PyList_GET_SIZE(pending), below) < 0) {
            Py_XDECREF(below);
            goto fail;
        }
        Py_DECREF(below);
    }
    result = Py_BuildValue("(y#LL)", lines.data ? lines.data : "", (Py_ssize_t)lines.length, size, newest);
    goto done;
none:
    result = Py_NewRef(Py_None);
    goto done;
fail:
    result = NULL;
done:
    if (top_fd >= 0) close(top_fd);
    Py_XDECREF(pending);
    PyMem_Free(lines.data);
    Py_DECREF(path_object);
    return result;
}

/* read_folder(fd, plan, max_size, max_depth) -> [(name, type, read)] unsorted, or None: see list_folder. ``fd`` is
 * a descriptor of the folder (kept open: it is the caller's); ``type`` is ENTRY_*, never following a link; ``read``
 * is read_entry's for a regular file the plan wants (named in its names, or ending with its suffix), (descriptor,
 * entries) or None for a sub-folder the plan names (the descriptor is the caller's to close), None for every
 * other entry. */
static PyObject *native_read_folder(PyObject *module, PyObject *args) {
    int folder;
    PyObject *plan_tuple;
    Py_ssize_t max_size;
    int max_depth;
    if (!PyArg_ParseTuple(args, "iOni", &folder, &plan_tuple, &max_size, &max_depth)) return NULL;
    Plan plan;
    if (parse_plan(plan_tuple, &plan, max_size, max_depth) < 0) return NULL;
    int opened = 0;
    return list_folder(folder, &plan, 0, &opened, 0);
}
#endif

/* ---- Finding members again from the offsets table ---- */

static int table_end(const uint64_t *table, Py_ssize_t count, uint64_t start, uint64_t *end) {
    Py_ssize_t low = 0, high = count - 1;
    while (low <= high) {
        Py_ssize_t mid = low + (high - low) / 2;
        uint64_t at = table[2 * mid];
        if (at == start) {
            *end = table[2 * mid + 1];
            return 0;
        }
        if (at < start)
            low = mid + 1;
        else
            high = mid - 1;
    }
    return -1;
}

/* Just after the scalar or string at pos (the document is known to be valid). */
static const unsigned char *skip_scalar(const unsigned char *p, const unsigned char *end) {
    if (*p == '"') {
        p++;
        while (p < end && *p != '"') p += (*p == '\\') ? 2 : 1;
        return p + 1;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && !is_ws(*p)) p++;
    return p;
}

/* Past whitespace and the separating comma to the next member or item of a container already known to be
   well-formed: 0 at its end. */
static int to_next_member(Reader *r) {
    skip_ws(r);
    if (r->pos >= r->end || *r->pos == '}' || *r->pos == ']') return 0;
    if (*r->pos == ',') {
        r->pos++;
        skip_ws(r);
        if (r->pos >= r->end) return 0;
    }
    return 1;
}

/* find_each(raw, table, start, wanted) -> [(key offset or -1, value offset) or None], one per wanted member of the
 * container at start, in one walk over it: wanted holds distinct member names (str) for an object, strictly
 * ascending indices (int) for an array. Placing the findings of N items of one array costs one pass, not N searches from
 * its start; the walk stops at the last wanted member. */
static PyObject *native_find_each(PyObject *module, PyObject *args) {
    Py_buffer view, table_view;
    Py_ssize_t start;
    PyObject *wanted;
    if (!PyArg_ParseTuple(args, "y*y*nO!", &view, &table_view, &start, &PyList_Type, &wanted)) return NULL;
    PyObject *result = NULL, *names = NULL;
    const unsigned char *base = view.buf;
    const uint64_t *table = table_view.buf;
    Py_ssize_t count = table_view.len / (Py_ssize_t)(2 * sizeof(uint64_t));
    Py_ssize_t size = PyList_GET_SIZE(wanted);
    uint64_t container_end;
    Reader r;
    memset(&r, 0, sizeof(r));
    if (start < 0 || start >= view.len || (base[start] != '{' && base[start] != '[') ||
        table_end(table, count, (uint64_t)start, &container_end) < 0 || container_end > (uint64_t)view.len) {
        PyErr_SetString(PyExc_ValueError, "no container at this offset");
        goto out;
    }
    int is_object = base[start] == '{';
    result = PyList_New(size);
    if (result == NULL) goto out;
    for (Py_ssize_t i = 0; i < size; i++) PyList_SET_ITEM(result, i, Py_NewRef(Py_None));
    Py_ssize_t next = 0, wanted_index = -1, left = size;
    if (is_object) {
        names = PyDict_New(); /* name -> its place in wanted */
        if (names == NULL) goto fail;
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *name = PyList_GET_ITEM(wanted, i);
            if (!PyUnicode_Check(name)) {
                PyErr_SetString(PyExc_TypeError, "an object's members are found by name");
                goto fail;
            }
            PyObject *place = PyLong_FromSsize_t(i);
            if (place == NULL || PyDict_SetItem(names, name, place) < 0) {
                Py_XDECREF(place);
                goto fail;
            }
            Py_DECREF(place);
        }
        left = PyDict_GET_SIZE(names);
    } else if (size > 0) {
        wanted_index = PyLong_AsSsize_t(PyList_GET_ITEM(wanted, 0));
        if (wanted_index == -1 && PyErr_Occurred()) goto fail;
    }
    r.start = base;
    r.end = base + container_end;
    r.pos = base + start + 1;
    for (Py_ssize_t index = 0; left > 0; index++) {
        if (!to_next_member(&r)) break;
        Py_ssize_t key_offset = -1, slot = -1;
        if (is_object) {
            key_offset = r.pos - base;
            r.pos++;
            PyObject *name = read_string(&r, 1);
            if (name == NULL) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not a valid document");
                goto fail;
            }
            PyObject *place = PyDict_GetItemWithError(names, name);
            Py_DECREF(name);
            if (place == NULL && PyErr_Occurred()) goto fail;
            if (place != NULL) {
                slot = PyLong_AsSsize_t(place);
                if (PyDict_DelItem(names, PyList_GET_ITEM(wanted, slot)) < 0) goto fail; /* found once */
            }
            skip_ws(&r);
            r.pos++; /* the colon */
            skip_ws(&r);
            if (r.pos >= r.end) break;
        } else if (index == wanted_index) {
            slot = next++;
            wanted_index = -1;
            if (next < size) {
                wanted_index = PyLong_AsSsize_t(PyList_GET_ITEM(wanted, next));
                if (wanted_index == -1 && PyErr_Occurred()) goto fail;
                if (wanted_index <= index) {
                    PyErr_SetString(PyExc_ValueError, "indices must ascend");
                    goto fail;
                }
            }
        }
        Py_ssize_t value_offset = r.pos - base;
        if (slot >= 0) {
            PyObject *pair = Py_BuildValue("(nn)", key_offset, value_offset);
            if (pair == NULL) goto fail;
            PyObject *none = PyList_GET_ITEM(result, slot);
            PyList_SET_ITEM(result, slot, pair);
            Py_DECREF(none);
            left = is_object ? PyDict_GET_SIZE(names) : (wanted_index < 0 ? 0 : left);
        }
        uint64_t value_end;
        if (*r.pos == '{' || *r.pos == '[') {
            if (table_end(table, count, (uint64_t)value_offset, &value_end) < 0 || value_end > (uint64_t)view.len) {
                PyErr_SetString(PyExc_ValueError, "offsets table does not match the document");
                goto fail;
            }
            r.pos = base + value_end;
        } else {
            r.pos = skip_scalar(r.pos, r.end);
        }
    }
    goto out;
fail:
    Py_CLEAR(result);
out:
    Py_XDECREF(names);
    reader_free(&r);
    PyBuffer_Release(&table_view);
    PyBuffer_Release(&view);
    return result;
}

/* line_columns(raw, offsets) -> [(line, column)], 1-based, columns in characters; offsets ascending. */
static PyObject *native_line_columns(PyObject *module, PyObject *args) {
    Py_buffer view;
    PyObject *offsets;
    if (!PyArg_ParseTuple(args, "y*O", &view, &offsets)) return NULL;
    PyObject *sequence = PySequence_Fast(offsets, "offsets must be a sequence");
    PyObject *result = NULL;
    if (sequence == NULL) goto out;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    result = PyList_New(count);
    if (result == NULL) goto out;
    const unsigned char *base = view.buf;
    Py_ssize_t cursor = 0, line = 1, line_start = 0, column = 1, column_at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t offset = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(sequence, i));
        if (offset == -1 && PyErr_Occurred()) {
            Py_CLEAR(result);
            goto out;
        }
        if (offset < cursor || offset > view.len) {
            PyErr_SetString(PyExc_ValueError, "offsets must ascend within the document");
            Py_CLEAR(result);
            goto out;
        }
        const unsigned char *p = base + cursor;
        const unsigned char *stop = base + offset;
        while ((p = memchr(p, '\n', (size_t)(stop - p))) != NULL) {
            line++;
            p++;
            line_start = p - base;
        }
        if (column_at < line_start) {
            column = 1;
            column_at = line_start;
        }
        /* on a long line, count on from the previous offset rather than from the line's start */
        for (const unsigned char *c = base + column_at; c < stop; c++) column += (*c & 0xC0) != 0x80;
        column_at = offset;
        cursor = offset;
        PyObject *pair = Py_BuildValue("(nn)", line, column);
        if (pair == NULL) {
            Py_CLEAR(result);
            goto out;
        }
        PyList_SET_ITEM(result, i, pair);
    }
out:
    Py_XDECREF(sequence);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"read", native_read, METH_VARARGS,
     "read(raw, max_depth, offsets=True) -> (data, flag, table, integral): flag 0 and the data of a clean "
     "document (integral: 0, or the set of member names, None for an array item or the root, whose values are floats "
     "with no fractional part), or (None, flag, None, 0) for a document "
     "the exact reader must see."},
#ifdef HAVE_READ_FOLDER
    {"read_folder", native_read_folder, METH_VARARGS,
     "read_folder(fd, plan, max_size, max_depth) -> [(name, type, read)] unsorted, or None: the entries of the folder "
     "open as fd (type ENTRY_*, links not followed); for each regular file the plan (names, suffix, folders) wants, "
     "(raw, data, table, integral) when it is a clean document within max_size, else None; for each sub-folder it "
     "names, (its descriptor, left open for the caller to close, and its entries by its own plan) or None."},
    {"survey", native_survey, METH_VARARGS,
     "survey(path) -> (lines, size, newest) or None: the lstat lines units/_cache.survey hashes for path and "
     "everything below it, the bytes they sum, the newest modification or change time (ns)."},
#endif
    {"find_each", native_find_each, METH_VARARGS,
     "find_each(raw, table, start, wanted) -> [(key offset or -1, value offset) or None] of many members, in one "
     "walk: names for an object, ascending indices for an array."},
    {"line_columns", native_line_columns, METH_VARARGS,
     "line_columns(raw, offsets) -> [(line, column)] for ascending byte offsets; columns count characters."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native", "The native strict JSON reader (see _native.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
#define FLAG(name) PyModule_AddIntConstant(module, "FLAG_" #name, FLAG_##name)
    if (FLAG(SYNTAX) || FLAG(EMPTY) || FLAG(TRAILING) || FLAG(DEPTH) || FLAG(DUPLICATE) || FLAG(LARGE_INTEGER) ||
        FLAG(NON_FINITE) || FLAG(CONTROL) || FLAG(UTF8) || FLAG(BOM) || FLAG(SURROGATE) ||
        PyModule_AddIntConstant(module, "ENTRY_FILE", ENTRY_FILE) ||
        PyModule_AddIntConstant(module, "ENTRY_FOLDER", ENTRY_FOLDER) ||
        PyModule_AddIntConstant(module, "ENTRY_LINK", ENTRY_LINK) ||
        PyModule_AddIntConstant(module, "ENTRY_OTHER", ENTRY_OTHER)) {
        Py_DECREF(module);
        return NULL;
    }
#undef FLAG
    return module;
}
