/* The literal values of values.h. */

#include <float.h>
#include <stdint.h>
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

/* Exact powers of ten as doubles: 10^22 is the largest that is (5^22 < 2^53). */
static const double powers_of_ten[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The double a real text -?[0-9]+.[0-9]+([eE][+-]?[0-9]+)? (checked by the caller)
 * stands for, when it is the quotient or product of two doubles that hold their values
 * exactly: at most 15 significant digits (an integer below 2^53) and a power of ten of
 * at most 22 (Clinger's fast path). One IEEE operation on exact operands rounds once,
 * to nearest: the double strtod gives (the slot ads' reals: 0.017399, 2.2397,
 * 73575632.0). 1 with *out set, else 0 (the caller asks strtod). Where arithmetic
 * is wider than double (x87: FLT_EVAL_METHOD not 0) a second rounding could differ:
 * never taken there. */
static int
quick_real(const unsigned char *v, Py_ssize_t n, double *out)
{
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    (void)v; (void)n; (void)out;
    return 0;
#else
    Py_ssize_t i = v[0] == '-' ? 1 : 0;
    uint64_t mantissa = 0;
    int significant = 0, fraction = 0, after_point = 0;
    for (; i < n; i++) {
        unsigned char c = v[i];
        if (c == '.') {
            after_point = 1;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        if (mantissa != 0 || c != '0')
            significant++;
        if (significant > 15)
            return 0;
        mantissa = mantissa * 10 + (uint64_t)(c - '0');
        fraction += after_point;
    }
    long exponent = 0;
    if (i < n) {  /* [eE][+-]?[0-9]+ to the end */
        i++;
        int negative = 0;
        if (v[i] == '+' || v[i] == '-')
            negative = v[i++] == '-';
        for (; i < n; i++) {
            exponent = exponent * 10 + (v[i] - '0');
            if (exponent > 1000)
                return 0;
        }
        if (negative)
            exponent = -exponent;
    }
    exponent -= fraction;
    if (exponent < -22 || exponent > 22)
        return 0;
    double value = (double)mantissa;  /* exact: below 10^15 < 2^53 */
    value = exponent < 0 ? value / powers_of_ten[-exponent]
                         : value * powers_of_ten[exponent];
    *out = v[0] == '-' ? -value : value;
    return 1;
#endif
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
    double quick;
    if (quick_real(v, n, &quick))
        return PyFloat_FromDouble(quick);
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
