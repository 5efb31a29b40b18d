/* The literal values of values.h. */

#include <string.h>

#include "values.h"

int
oldscan_is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* A string value: the text between the quotes with each \" read as a quote and any
 * other backslash as itself (the old string rule), when every quote inside is written
 * \" and there is no NUL; NULL without an exception otherwise. */
static PyObject *
plain_string(const unsigned char *inside, Py_ssize_t m)
{
    if (memchr(inside, 0, (size_t)m) != NULL)
        return NULL;
    const unsigned char *quote = memchr(inside, '"', (size_t)m);
    if (quote == NULL)
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, inside, m);
    unsigned char small[256];
    unsigned char *out = m <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc((size_t)m);
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = 0;
    PyObject *value = NULL;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (inside[i] == '\\' && i + 1 < m && inside[i + 1] == '"') {
            out[k++] = '"';
            i++;
        }
        else if (inside[i] == '"') {
            goto done;  /* a quote not written \" */
        }
        else {
            out[k++] = inside[i];
        }
    }
    value = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, out, k);
done:
    if (out != small)
        PyMem_Free(out);
    return value;
}

static Py_ssize_t
digits(const unsigned char *v, Py_ssize_t i, Py_ssize_t n)
{
    Py_ssize_t start = i;
    while (i < n && v[i] >= '0' && v[i] <= '9')
        i++;
    return i - start;
}

/* The Literal's value of a value text oldform._plain_literal reads the same way, a
 * new reference: a string (plain_string), a decimal integer of at most 18 digits
 * without a leading zero, optionally negative (int), or -?[0-9]+.[0-9]+([eE][+-]?
 * [0-9]+)? (float, as Python's float() reads it, at most 63 characters); NULL without
 * an exception for any other text. */
PyObject *
oldscan_plain_value(const unsigned char *v, Py_ssize_t n)
{
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        return plain_string(v + 1, n - 2);
    Py_ssize_t i = (n > 0 && v[0] == '-') ? 1 : 0;
    Py_ssize_t whole = digits(v, i, n);
    if (whole == 0)
        return NULL;
    if (i + whole == n) {
        if (whole > 18 || (v[i] == '0' && whole > 1))
            return NULL;
        long long value = 0;
        for (Py_ssize_t j = i; j < n; j++)
            value = value * 10 + (v[j] - '0');
        return PyLong_FromLongLong(i ? -value : value);
    }
    Py_ssize_t j = i + whole;
    if (v[j] != '.')
        return NULL;
    Py_ssize_t fraction = digits(v, j + 1, n);
    if (fraction == 0)
        return NULL;
    j += 1 + fraction;
    if (j < n) {
        if (v[j] != 'e' && v[j] != 'E')
            return NULL;
        j++;
        if (j < n && (v[j] == '+' || v[j] == '-'))
            j++;
        Py_ssize_t exponent = digits(v, j, n);
        if (exponent == 0 || j + exponent != n)
            return NULL;
    }
    char text[64];
    if (n >= (Py_ssize_t)sizeof(text))
        return NULL;
    memcpy(text, v, (size_t)n);
    text[n] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();  /* not expected after the check above: the slow way decides */
        return NULL;
    }
    return PyFloat_FromDouble(value);
}
