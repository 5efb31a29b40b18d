/* The literal values the old-form scanner reads itself (scanner.c), as oldform's
 * _plain_literal reads them. */

#ifndef OLDSCAN_VALUES_H
#define OLDSCAN_VALUES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Whether c is one of the blanks " \t\r\n\f\v" (oldform's _BLANK). */
int oldscan_is_blank(unsigned char c);

/* The value of a value text oldform._plain_literal reads the same way, a new
 * reference: a string (quotes inside all written \", no NUL; each \" read as a quote,
 * any other backslash as itself), a decimal integer of at most 18 digits without a
 * leading zero, optionally negative (int), or -?[0-9]+.[0-9]+([eE][+-]?[0-9]+)? (float,
 * as Python's float() reads it, at most 63 characters); NULL without an exception for
 * any other text, NULL with one on failure. */
PyObject *oldscan_plain_value(const unsigned char *v, Py_ssize_t n);

#endif
