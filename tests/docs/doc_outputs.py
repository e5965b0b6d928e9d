#!/usr/bin/env python3
"""Runs every command a document shows with its output, and compares the output it prints today.

A shown command is an indented code block line "    $ ackstall ARGS"; its output is the indented
lines after it (a line of only the indentation is an empty output line), up to an empty line or
the next "$ " line. The commands of one document run in
order, in one scratch directory where the repository's tests/, examples/ and docs/ are visible
(a command may read what an earlier one wrote, as the guide's readers would), with `ackstall` the
binary under test.

Trimming, as the documents mark it:
  - an expected line ending in "..." matches any line that starts with the text before it;
  - an expected line that is only "..." matches the lines up to the first whose first word is the
    first word of the next expected line (all remaining lines when it is the last).
Everything else must be equal, byte for byte.

  doc_outputs.py --ackstall BIN [--update] FILE.md...

Exit 0 when every output matches; 1 with a diff per drifting command (and how to regenerate);
2 on bad usage. --update rewrites the documents' outputs from today's, keeping their trimming.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROMPT = re.compile(r"^( {4,})\$ (ackstall .*)$")


def blocks(lines):
    """(index of the $ line, indent, command, [output line indexes]) for each shown command."""
    out = []
    i = 0
    while i < len(lines):
        m = PROMPT.match(lines[i])
        if not m:
            i += 1
            continue
        indent, cmd = m.group(1), m.group(2)
        j = i + 1
        body = []
        # A line of only the indentation is a blank line of the output; an empty line ends it.
        while j < len(lines) and lines[j].startswith(indent) and not PROMPT.match(lines[j]):
            body.append(j)
            j += 1
        out.append((i, indent, cmd, body))
        i = j
    return out


def first_word(s):
    parts = s.split()
    return parts[0] if parts else ""


def skip_ellipsis(expected, k, actual, a):
    """Where the "..." at expected[k] stops, starting at actual[a]: at the first line whose first
    word is the next expected line's, or at the end when it is the last."""
    if k + 1 >= len(expected):
        return len(actual)
    want = first_word(expected[k + 1])
    while a < len(actual) and first_word(actual[a]) != want:
        a += 1
    return a


def align(expected, actual):
    """Matches expected (trimmed) lines to actual ones: a list of (expected, [actual lines]) or None
    on the first mismatch, with the mismatch's description."""
    pairs = []
    a = 0
    for k, e in enumerate(expected):
        if e.strip() == "...":
            start, a = a, skip_ellipsis(expected, k, actual, a)
            pairs.append((e, actual[start:a]))
            continue
        if a >= len(actual):
            return pairs, f"expected more output: {e!r}"
        got = actual[a]
        if e.endswith("...") and not e.strip() == "...":
            ok = got.startswith(e[:-3])
        else:
            ok = got == e
        if not ok:
            return pairs, f"line {a + 1}:\n      expected: {e!r}\n      printed:  {got!r}"
        pairs.append((e, [got]))
        a += 1
    if a < len(actual):
        return pairs, f"more output than shown, from line {a + 1}: {actual[a]!r}"
    return pairs, None


def regenerate(expected, actual):
    """The expected lines rewritten from `actual`, keeping each line's trimming."""
    out = []
    a = 0
    for k, e in enumerate(expected):
        if e.strip() == "...":
            a = skip_ellipsis(expected, k, actual, a)
            out.append(e)
            continue
        if a >= len(actual):
            break
        got = actual[a]
        if e.endswith("..."):
            cut = len(e) - 3
            out.append(got[:cut] + "..." if len(got) > cut else got)
        else:
            out.append(got)
        a += 1
    out.extend(actual[a:])
    return out


def run_doc(path, binary, update, repo):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = blocks(lines)
    if not found:
        return 0, 0
    drift = 0
    work = tempfile.mkdtemp(prefix="ackstall-doc-")
    try:
        bindir = os.path.join(work, ".bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(binary), os.path.join(bindir, "ackstall"))
        for d in ("tests", "examples", "docs", "bench"):
            os.symlink(os.path.join(repo, d), os.path.join(work, d))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), COLUMNS="100")
        replaced = {}
        for (at, indent, cmd, body) in found:
            r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, capture_output=True, text=True, timeout=600)
            actual = [indent + l for l in r.stdout.rstrip("\n").split("\n")] if r.stdout else []
            expected = [lines[j] for j in body]
            _, problem = align([e[len(indent):] for e in expected], [l[len(indent):] for l in actual])
            if problem is None:
                continue
            if update:
                new = regenerate([e[len(indent):] for e in expected], [l[len(indent):] for l in actual])
                replaced[at] = (body, [indent + l for l in new])
                continue
            drift += 1
            print(f"{path}:{at + 1}: `{cmd}` (exit {r.returncode}) prints something else than shown: {problem}")
            if r.stderr.strip():
                print("      stderr: " + r.stderr.strip().split("\n")[0])
        if update and replaced:
            for at in sorted(replaced, reverse=True):
                body, new = replaced[at]
                start = at + 1
                end = body[-1] + 1 if body else start
                lines[start:end] = new
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print(f"{path}: {len(replaced)} output(s) rewritten")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return len(found), drift


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ackstall", required=True, help="the ackstall binary")
    p.add_argument("--update", action="store_true", help="rewrite the shown outputs from today's")
    p.add_argument("docs", nargs="+")
    o = p.parse_args()
    if not os.access(o.ackstall, os.X_OK):
        print(f"doc_outputs: no executable ackstall at {o.ackstall}", file=sys.stderr)
        return 2
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    total = drift = 0
    for d in o.docs:
        if not os.path.isfile(d):
            print(f"doc_outputs: {d}: no such file", file=sys.stderr)
            return 2
        n, bad = run_doc(d, o.ackstall, o.update, repo)
        total += n
        drift += bad
    if drift:
        print(f"{drift} of {total} shown outputs drifted; regenerate with: "
              f"tests/docs/doc_outputs.py --ackstall {o.ackstall} --update {' '.join(o.docs)}")
        return 1
    print(f"{total} shown outputs match what the commands print today")
    return 0


if __name__ == "__main__":
    sys.exit(main())
