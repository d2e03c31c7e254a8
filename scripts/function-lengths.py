#!/usr/bin/env python3
"""Lists the long functions of blksim's sources, and fails on one over a limit that is not allowed.

A function's length is its lines from the first line of its signature to its closing brace.
The scan is a brace counter over the source with comments, string and character literals
blanked out: a '{' at namespace or class scope opens a function when what stands before it
(since the last ';', '{' or '}') is a signature -- a parenthesised parameter list not behind
an '=' and not of a control statement. Lambdas and local classes count in the function that
holds them; a lambda in a namespace-scope initializer (a parameter table's row) is no
function of its own.

Usage: function-lengths.py [--list N] [--max N] [--allow FILE] [ROOT...]
  ROOT       folders (or files) to scan, relative to the repository; default sim models tools
  --list N   print every function over N lines, longest first (default 60)
  --max N    fail (exit 1) on a function over N lines that FILE does not name (default: no limit)
  --allow F  the allowlist: lines "path function  # why it stays long"; an entry that no longer
             names a function over --max fails the check, so the list only shrinks
  --self-test  the scanner on small sources whose functions are known
Exit status: 0 clean, 1 a function over --max (or a stale allowlist entry), 2 bad usage.
"""

import argparse
import os
import re
import sys

EXTENSIONS = (".h", ".cc")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|try|return)\b")
RECORD = re.compile(r"\b(class|struct|union|enum|namespace)\b")
NAME = re.compile(r"((?:[A-Za-z_~]\w*\s*(?:<[^()]*>)?\s*::\s*)*~?(?:operator\s*[^\s(]+|operator\s*\(\)|[A-Za-z_]\w*))\s*$")


def blank(src):
    """`src` with comments, string and char literals (raw strings too) replaced by spaces; newlines kept."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "R" and src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            k = src.find("(", i)
            delim = ")" + src[i + 2:k] + '"'
            j = src.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is no character literal.
            if c == "'" and i > 0 and src[i - 1].isalnum() and i + 1 < n and src[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    """Blanks preprocessor lines (with their continuations), keeping newlines."""
    lines = text.split("\n")
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def top_level(header, opener="(", closer=")"):
    """`header` with everything inside (...) removed, so that '=' in default arguments does not count."""
    out, depth = [], 0
    for c in header:
        if c == opener:
            depth += 1
            out.append(c)
        elif c == closer:
            depth = max(depth - 1, 0)
            out.append(c)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def strip_template(h):
    """`h` without a leading template <...> parameter list."""
    while h.startswith("template"):
        depth, k = 0, len("template")
        while k < len(h):
            depth += {"<": 1, ">": -1}.get(h[k], 0)
            k += 1
            if depth == 0 and h[k - 1] == ">":
                break
        h = h[k:].lstrip()
    return h


def function_name(header):
    """The qualified name before the parameter list of a signature, or None if it is no signature."""
    h = strip_template(" ".join(header.split()))
    if "(" not in h or CONTROL.match(h) or h.count("(") != h.count(")"):
        return None
    if "operator" in h:
        m = re.search(r"([\w:~]*operator\s*(?:\(\)|[^\s(]+))\s*\(", h)
        return m.group(1).replace(" ", "") if m else None
    head = h[:h.index("(")]
    # An initializer (x = {...}, x = [](...) {...}) or a class/enum head is no function.
    if "=" in top_level(h) or "[" in head or RECORD.search(head):
        return None
    m = NAME.search(head)
    return m.group(1).replace(" ", "") if m else None


def member_brace_init(header):
    """True when the '{' after `header` initialises a member in a constructor's initializer list."""
    h = " ".join(header.split())
    return bool(re.search(r"\)\s*:(?!:)", top_level(h))) and bool(re.search(r"[\w>]\s*$", h)) \
        and not re.search(r"\b(const|noexcept|override|final)\s*$", h)


def functions(path, text):
    """(name, first line, last line) of each function defined in `text`."""
    src = strip_preprocessor(blank(text))
    found = []
    stack = []  # per open brace: "scope" (namespace, class), (name, first line) of a function, "inner", "init"
    header_start = 0
    for i, c in enumerate(src):
        if c == "{":
            enclosing = stack[-1] if stack else "scope"
            header = src[header_start:i]
            if enclosing != "scope":
                stack.append("inner")
            elif member_brace_init(header):
                stack.append("init")  # y_{x} in "A() : y_{x} {": the signature goes on
                continue
            elif name := function_name(header):
                first = header_start + (len(header) - len(header.lstrip()))
                stack.append((name, src.count("\n", 0, first) + 1))
            elif RECORD.search(strip_template(" ".join(header.split()))) or header.strip().startswith("extern"):
                stack.append("scope")
            else:
                stack.append("inner")
            header_start = i + 1
        elif c == "}":
            top = stack.pop() if stack else "scope"
            if top == "init":
                continue
            if isinstance(top, tuple):
                found.append((top[0], top[1], src.count("\n", 0, i) + 1))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
        elif c == ":" and (not stack or stack[-1] == "scope"):
            # An access label (public:) ends a header; '::' and a constructor's ':' do not.
            if src[header_start:i].strip() in ("public", "private", "protected"):
                header_start = i + 1
    return found


def scan(roots, base):
    """(length, path, name, first line) of every function under `roots`."""
    out = []
    for root in roots:
        top = os.path.join(base, root)
        paths = [top] if os.path.isfile(top) else [
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith(EXTENSIONS)]
        for p in sorted(paths):
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            rel = os.path.relpath(p, base)
            for name, first, last in functions(rel, text):
                out.append((last - first + 1, rel, name, first))
    out.sort(key=lambda r: (-r[0], r[1], r[3]))
    return out


def read_allow(path):
    """{(path, function): reason} from the allowlist file."""
    allow = {}
    with open(path, encoding="utf-8") as fh:
        for k, line in enumerate(fh, 1):
            body, _, reason = line.partition("#")
            words = body.split()
            if not words:
                continue
            if len(words) != 2 or not reason.strip():
                sys.exit(f"{path}:{k}: expected 'path function  # reason', got: {line.strip()}")
            allow[(words[0], words[1])] = reason.strip()
    return allow


SELF_TEST = {
    # name -> expected (name, first, last) list
    "plain": ("int f(int a) {\n  return a;\n}\n", [("f", 1, 3)]),
    "ns_class_method": ("namespace x {\nclass C {\npublic:\n  void g() const {\n    if (a) {\n    }\n  }\n};\n}\n",
                        [("g", 4, 7)]),
    "qualified_ctor_init": ("A::A(int x)\n    : x_(x), y_{x} {\n  z();\n}\n", [("A::A", 1, 4)]),
    "table_lambda_is_no_function": ("constexpr P k[] = {\n  row(\"a\", [](C& c) { c.x = 1; }),\n};\n", []),
    "lambda_in_function": ("void h() {\n  auto l = [](int) {\n    return 1;\n  };\n}\n", [("h", 1, 5)]),
    "strings_and_comments": ("void s() {\n  const char* t = \"}\"; // }\n  /* { */\n  char c = '{';\n}\n",
                             [("s", 1, 5)]),
    "template_and_operator": ("template <class T>\nbool operator==(const T& a, const T& b) {\n  return a.x == b.x;\n}\n",
                              [("operator==", 1, 4)]),
    "struct_init_is_no_function": ("struct S {\n  int a = f(1);\n  int b{2};\n};\n", []),
    "digit_separator": ("int n() {\n  return 1'000'000;\n}\n", [("n", 1, 3)]),
}


def self_test():
    bad = 0
    for case, (text, want) in SELF_TEST.items():
        got = functions(case, text)
        if got != want:
            print(f"self-test {case}: got {got}, want {want}")
            bad += 1
    print("self-test: " + ("ok" if not bad else f"{bad} failed"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="*", default=["sim", "models", "tools"])
    ap.add_argument("--list", type=int, default=60)
    ap.add_argument("--max", type=int, default=None)
    ap.add_argument("--allow")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for r in a.roots:
        if not os.path.exists(os.path.join(base, r)):
            print(f"function-lengths.py: {r}: no such folder or file under {base}", file=sys.stderr)
            return 2
    allow = read_allow(a.allow) if a.allow else {}
    rows = scan(a.roots, base)
    status = 0
    used = set()
    for length, rel, name, first in rows:
        if length <= a.list and (a.max is None or length <= a.max):
            continue
        key = (rel, name)
        note = ""
        if a.max is not None and length > a.max:
            if key in allow:
                used.add(key)
                note = f"  (allowed: {allow[key]})"
            else:
                note = f"  over {a.max} lines: split it, or name it in the allowlist with a reason"
                status = 1
        print(f"{rel}:{first}: {name}: {length} lines{note}")
    for key in sorted(set(allow) - used):
        print(f"{a.allow}: {key[0]} {key[1]}: no longer over {a.max} lines; remove the entry")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
