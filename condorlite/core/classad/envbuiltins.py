"""The environment and argument built-ins HTCondor registers in its ClassAd layer
(``compat_classad.cpp``, with ``env.cpp`` and ``condor_arglist.cpp``): ``envV1ToV2``,
``mergeEnvironment``, ``argsToList``, ``listToArgs`` and ``userHome``.

The two syntaxes, as HTCondor reads and writes them:

* V2 arguments (and V2 environments, one ``NAME=value`` per argument): words split on
  space, tab, newline and carriage return; single quotes group, ``''`` inside quotes is
  one quote; an unbalanced quote is an error. Written back, an argument holding blanks
  or quotes gets them quoted (runs merged), an empty argument is ``''``.
* V1 arguments: words split on blanks, no quoting; writing an argument that holds a
  blank is an error. V1 environments: entries separated by ``;`` (or by the string's
  first character when that is one of ``!#$%&*+,-/:;<>?@^`|~`` or 0x1F) or a newline,
  leading blanks dropped.

An environment is a map sorted by name (later entries win); every entry needs a
``=`` after a non-empty name, except one holding ``$$`` (kept as a bare name).
"""

from __future__ import annotations

from .builtins import INFINITE_ARITY, register
from .values import Error, Undefined, list_values

_BLANKS = " \t\n\r"
_V1_DELIMS = "!#$%&*+,-/:;<>?@^`|~\x1f"
_NO_VALUE = object()


def _c_string(text: str) -> str:
    """What C sees of a string: up to the first NUL."""
    return text.split("\0", 1)[0]


def split_v2(text: str) -> list[str] | None:
    """HTCondor's ``split_args``: V2 words, or None for an unbalanced quote."""
    words: list[str] = []
    buf: list[str] = []
    token = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "'":
            token = True
            i += 1
            while i < n:
                if text[i] == "'":
                    if i + 1 < n and text[i + 1] == "'":
                        buf.append("'")
                        i += 2
                        continue
                    break
                buf.append(text[i])
                i += 1
            if i >= n:
                return None
            i += 1
        elif ch in _BLANKS:
            i += 1
            if token:
                token = False
                words.append("".join(buf))
                buf = []
        else:
            token = True
            buf.append(ch)
            i += 1
    if token:
        words.append("".join(buf))
    return words


def join_v2(words: list[str]) -> str:
    """HTCondor's ``join_args``: V2 text for a list of words."""
    out: list[str] = []
    for word in words:
        if out:
            out.append(" ")
        if not word:
            out.append("''")
        for ch in word:
            if ch in " \t\n\r'":
                if out and out[-1].endswith("'"):
                    out[-1] = out[-1][:-1]
                else:
                    out.append("'")
                out.append("''" if ch == "'" else ch)
                out.append("'")
            else:
                out.append(ch)
    return "".join(out)


def _set_entry(env: dict[str, object], entry: str) -> bool:
    """HTCondor's ``SetEnvWithErrorMessage`` on one ``NAME=value`` entry."""
    if not entry:
        return False
    eq = entry.find("=")
    if eq < 0 and "$$" in entry:
        env[entry] = _NO_VALUE
        return True
    if eq <= 0:
        return False
    env[entry[:eq]] = entry[eq + 1 :]
    return True


def _env_text(env: dict[str, object]) -> str:
    entries = []
    for name in sorted(env, key=lambda s: s.encode("utf-8", "surrogateescape")):
        value = env[name]
        entries.append(name if value is _NO_VALUE else f"{name}={value}")
    return join_v2(entries)


def _merge_v1(env: dict[str, object], text: str) -> bool:
    """HTCondor's ``MergeFromV1AutoDelim``."""
    if not text:
        return True
    delim = ";"
    if text[0] == delim:
        text = text[1:]
    elif text[0] in _V1_DELIMS:
        delim = text[0]
        text = text[1:]
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in _BLANKS:
            i += 1
        start = i
        while i < n and text[i] != "\n" and text[i] != delim:
            i += 1
        entry = text[start:i]
        if i < n:
            i += 1
        if entry and not _set_entry(env, entry):
            return False
    return True


@register("envV1ToV2", 1, 1)
def env_v1_to_v2(value):  # type: ignore[no-untyped-def]
    """envV1ToV2(env): a V1 environment string in V2 syntax (entries sorted by name);
    undefined stays undefined; a non-string or a malformed entry is error."""
    if value is Undefined:
        return Undefined
    if type(value) is not str:
        return Error
    env: dict[str, object] = {}
    if not _merge_v1(env, _c_string(value)):
        return Error
    return _env_text(env)


@register("mergeEnvironment", 0, INFINITE_ARITY)
def merge_environment(*values):  # type: ignore[no-untyped-def]
    """mergeEnvironment(env, ...): the V2 environments merged left to right (later
    names win), in V2 syntax sorted by name; undefined arguments are skipped; a
    non-string or a malformed environment is error."""
    env: dict[str, object] = {}
    for value in values:
        if value is Undefined:
            continue
        if type(value) is not str:
            return Error
        words = split_v2(_c_string(value))
        if words is None:
            return Error
        for word in words:
            if not _set_entry(env, word):
                return Error
    return _env_text(env)


def _version(args: tuple[object, ...]) -> int | None:
    """The optional syntax version (1 or 2; default 2), or None when invalid."""
    if len(args) < 2:
        return 2
    version = args[1]
    if type(version) is not int:
        return None
    version &= 0xFFFFFFFF  # C's int
    return version if version in (1, 2) else None


@register("argsToList", 1, 2)
def args_to_list(*args):  # type: ignore[no-untyped-def]
    """argsToList(args [, version]): the words of an argument string (V2 syntax by
    default, V1 with version 1) as a list of strings; a non-string, a version other
    than the integers 1 or 2, or an unbalanced quote is error."""
    version = _version(args)
    if version is None or type(args[0]) is not str:
        return Error
    text = _c_string(args[0])
    if version == 1:
        return _split_v1(text)
    words = split_v2(text)
    return Error if words is None else words


def _split_v1(text: str) -> list[str]:
    words: list[str] = []
    buf: list[str] = []
    for ch in text:
        if ch in _BLANKS:
            if buf:
                words.append("".join(buf))
                buf = []
        else:
            buf.append(ch)
    if buf:
        words.append("".join(buf))
    return words


@register("listToArgs", 1, 2, reads_lists=True)
def list_to_args(*args):  # type: ignore[no-untyped-def]
    """listToArgs(list [, version]): a list of strings as one argument string (V2
    syntax by default, quoting as needed; V1 with version 1, where an argument holding
    a blank is error); a non-list, a non-string element or a bad version is error."""
    version = _version(args)
    words = list_values(args[0])
    if version is None or type(words) is not list:
        return Error
    if any(type(w) is not str for w in words):
        return Error
    words = [_c_string(w) for w in words]
    if version == 1:
        if any(ch in _BLANKS for w in words for ch in w):
            return Error
        out = ""
        for word in words:
            out += (" " if out else "") + word
        return out
    return join_v2(words)


@register("userHome", 1, 2)
def user_home(*args):  # type: ignore[no-untyped-def]
    """userHome(user [, default]): as HTCondor with its default configuration
    (``CLASSAD_ENABLE_USER_HOME`` false): the default when it is a non-empty string;
    otherwise undefined for a string or undefined user, error for any other user."""
    default = args[1] if len(args) == 2 else None
    if type(default) is str and default:
        return default
    user = args[0]
    if user is Undefined or type(user) is str:
        return Undefined
    return Error
