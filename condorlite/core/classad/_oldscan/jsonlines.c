/* JSON ads laid out as condor_status -json prints them, the per-line part in C (see
 * oldscan.py's scan_json_ad_lists for the contract; jsonfast.py is the same reader in
 * Python).
 *
 * The layout puts the array's "[", each ad's "{", each "}" (or "},"), each separating
 * "," and the closing "]" on lines of their own, and each member on one line. A line
 * is classified by its token, the text between JSON blanks (space, tab, CR, LF):
 *
 *   - inside an ad, a token that starts with a quote is a member line, read as an
 *     old-form line is (scanner.c: the previous ad's line at its position, the line
 *     table, a new line read here when plain, else the `miss(line, comma)` callback);
 *     a member whose token does not end with "," is the ad's last;
 *   - "{", "}", "},", ",", "[" and "]" move the reader along the array (the states
 *     below); blank lines are skipped anywhere, as JSON allows;
 *   - anything else (another layout, a member across lines, a nested value, a bad
 *     line, text after the array), or a member line `miss` returns None for, stops
 *     the scanner: feed() returns the line the general reader (jsonread) is to
 *     resume at, the open ad's "{" line inside an ad, else the line itself, and
 *     `mode` says in which of its states. The general reader then reads the rest and
 *     reports any error exactly as it would have reading from the start.
 *
 * A new member line is read here when the text is one byte per character and the
 * line is [blanks]"NAME"[blanks]:[blanks]VALUE[blanks][,][blanks] with a NAME of
 * printable ASCII without quote or backslash, and a VALUE that is a string without
 * quote, backslash or control character, or a number as JSON writes one that
 * oldscan_plain_value reads (an integer of up to 18 digits; a real with a fraction):
 * what json would decode, with nothing to unescape, so the pair is jsonread's
 * (`names` maps NAME to its (lower-case, spelling) pair; `new_name` makes one). */

#include <string.h>

#include "scanner.h"
#include "values.h"

enum { START, FIRST, OPEN, MEMBERS, CLOSE, SEP, END };

static const char *const MODES[] = {"whole", "first", "value", "value", "value", "sep",
                                    "end"};

const char *
scanner_json_mode(const Scanner *s)
{
    return MODES[s->state];
}

static inline int
json_blank(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The length of a JSON number at v[0..n) (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?)
 * when it is all of it, else 0. */
static Py_ssize_t
json_number(const unsigned char *v, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    if (i < n && v[i] == '-')
        i++;
    if (i >= n)
        return 0;
    if (v[i] == '0')
        i++;
    else if (v[i] >= '1' && v[i] <= '9')
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++;
    else
        return 0;
    if (i < n && v[i] == '.') {
        Py_ssize_t start = ++i;
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    if (i < n && (v[i] == 'e' || v[i] == 'E')) {
        i++;
        if (i < n && (v[i] == '+' || v[i] == '-'))
            i++;
        Py_ssize_t start = i;
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    return i == n ? n : 0;
}

/* The Literal of a plain value text (module doc), a new reference; NULL without an
 * exception when the text is not plain. */
static PyObject *
json_literal(Scanner *s, const unsigned char *v, Py_ssize_t n)
{
    PyObject *value;
    if (n >= 2 && v[0] == '"') {
        if (v[n - 1] != '"')
            return NULL;
        for (Py_ssize_t i = 1; i < n - 1; i++) {
            if (v[i] == '"' || v[i] == '\\' || v[i] < 0x20)
                return NULL;
        }
        value = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, v + 1, n - 2);
    }
    else {
        if (json_number(v, n) == 0)
            return NULL;
        value = oldscan_plain_value(v, n);  /* NULL (no exception) past its forms */
    }
    return value == NULL ? NULL : scanner_literal(s, value);
}

PyObject *
scanner_json_pair(Scanner *s, const unsigned char *p, Py_ssize_t n, int *value_new)
{
    const unsigned char *end = p + n;
    const unsigned char *q = p;
    while (q < end && json_blank(*q))
        q++;
    if (q == end || *q != '"')
        return NULL;
    const unsigned char *name = ++q;
    while (q < end && *q != '"') {
        if (*q == '\\' || *q < 0x20 || *q >= 0x7f)
            return NULL;  /* escapes and non-ASCII names: the slow way decides */
        q++;
    }
    if (q == end || q == name)
        return NULL;
    const unsigned char *name_end = q++;
    while (q < end && json_blank(*q))
        q++;
    if (q == end || *q != ':')
        return NULL;
    const unsigned char *head_end = q++;  /* the head: the text before the colon */
    while (q < end && json_blank(*q))
        q++;
    const unsigned char *v = q;
    while (end > v && json_blank(end[-1]))
        end--;
    if (end > v && end[-1] == ',') {
        end--;
        while (end > v && json_blank(end[-1]))
            end--;
    }
    if (end == v)
        return NULL;
    PyObject *literal = scanner_value(s, v, end - v, json_literal, value_new);
    if (literal == NULL)
        return NULL;
    PyObject *pair = scanner_named_pair(s, p, head_end - p, name, name_end - name, literal);
    Py_DECREF(literal);
    return pair;
}

/* Whether the token [a, b) of the text is the ASCII text t. */
static inline int
token_is(const void *data, int kind, Py_ssize_t a, Py_ssize_t b, const char *t)
{
    Py_ssize_t n = (Py_ssize_t)strlen(t);
    if (b - a != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_READ(kind, data, a + i) != (Py_UCS4)(unsigned char)t[i])
            return 0;
    }
    return 1;
}

/* A structural line read: the reader moves to `state` (0). */
static inline int
move_to(Scanner *s, int state)
{
    s->state = state;
    s->token_line = s->lineno;
    return 0;
}

int
scanner_json_line(Scanner *s, PyObject *text, const void *data, int kind, Py_ssize_t pos,
                  Py_ssize_t stop, PyObject *done)
{
    s->lineno++;
    Py_ssize_t a = pos, b = stop;
    while (a < b && json_blank(PyUnicode_READ(kind, data, a)))
        a++;
    while (b > a && json_blank(PyUnicode_READ(kind, data, b - 1)))
        b--;
    if (a == b)
        return 0;  /* a blank line */
    switch (s->state) {
    case MEMBERS:
        if (PyUnicode_READ(kind, data, a) == '"') {
            int comma = PyUnicode_READ(kind, data, b - 1) == ',';
            int r = scanner_feed_member(s, text, data, kind, pos, stop, done, comma, 0);
            if (r == 0 && !comma)
                s->state = CLOSE;
            return r;
        }
        if (s->pending.n == 0) {  /* "{" then "}": an empty ad */
            if (token_is(data, kind, a, b, "}") || token_is(data, kind, a, b, "},"))
                goto close;
        }
        break;
    case CLOSE:
        if (token_is(data, kind, a, b, "}") || token_is(data, kind, a, b, "},"))
            goto close;
        break;
    case FIRST:
        if (token_is(data, kind, a, b, "]"))
            return move_to(s, END);
        /* fall through */
    case OPEN:
        if (token_is(data, kind, a, b, "{")) {
            s->ad_line = s->lineno;
            return move_to(s, MEMBERS);
        }
        break;
    case SEP:
        if (token_is(data, kind, a, b, ","))
            return move_to(s, OPEN);
        if (token_is(data, kind, a, b, "]"))
            return move_to(s, END);
        break;
    case START:
        if (token_is(data, kind, a, b, "["))
            return move_to(s, FIRST);
        break;
    default:
        break;
    }
    return scanner_hand_over(s, s->lineno);
close:
    move_to(s, b - a == 1 ? SEP : OPEN);
    return scanner_end_ad(s, done, 1);
}

int
scanner_hand_over(Scanner *s, Py_ssize_t line)
{
    /* inside an ad the general reader reads it again from its "{" */
    int inside = s->state == MEMBERS || s->state == CLOSE;
    s->handover = inside ? s->ad_line : line;
    pending_clear(s);
    return SCANNER_HAND_OVER;
}

int
scanner_json_at_end(const Scanner *s, Py_ssize_t *line, int *blank)
{
    if (s->state == START || s->state == END)
        return 0;
    int inside = s->state == MEMBERS || s->state == CLOSE;
    *line = inside ? s->ad_line : s->token_line;
    *blank = !inside;
    return 1;
}

Py_ssize_t
scanner_json_keep_from(const Scanner *s)
{
    if (s->state == MEMBERS || s->state == CLOSE)
        return s->ad_line;
    return s->token_line > 0 ? s->token_line : s->lineno + 1;
}
