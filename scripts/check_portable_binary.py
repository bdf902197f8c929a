#!/usr/bin/env python3
"""Checks that a binary runs on a Debian machine without the Swift toolchain: every shared library `ldd` resolves
must belong to an installed Debian package (`dpkg -S`), and none may come from /opt/swift or be missing. A build with
`--static-swift-stdlib` passes; a plain `swift build` fails, naming libswiftCore.so.

Usage: scripts/check_portable_binary.py BINARY   (exit 0 portable, 1 not, 2 usage)
"""
import os
import subprocess
import sys


def candidates(path):
    """`path`, its real path, and both halves of merged /usr for each: dpkg registers a file under one of them."""
    names = {path, os.path.realpath(path)}
    for name in list(names):
        if name.startswith('/usr/lib/'):
            names.add(name[len('/usr'):])
        elif name.startswith('/lib/') or name.startswith('/lib64/'):
            names.add('/usr' + name)
    return names


def owned(paths):
    """The subset of `paths` that some installed Debian package owns, asked of dpkg in one call."""
    if not paths:
        return set()
    result = subprocess.run(['dpkg', '-S'] + sorted(paths), capture_output=True, text=True)
    found = set()
    for line in result.stdout.splitlines():
        package, _, path = line.partition(': ')
        if package and path:
            found.add(path.strip())
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    binary = sys.argv[1]
    listing = subprocess.run(['ldd', binary], capture_output=True, text=True)
    if listing.returncode != 0:
        print(f'{binary}: ldd failed: {listing.stderr.strip() or listing.stdout.strip()}', file=sys.stderr)
        return 1
    problems = []
    libraries = {}
    for line in listing.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith('linux-vdso') or line.startswith('statically linked'):
            continue
        name, _, rest = line.partition(' => ')
        path = (rest or name).split(' (')[0].strip()
        if path == 'not found':
            problems.append(f'{name}: not found')
        elif path.startswith('/opt/swift') or '/swift/linux/' in path:
            problems.append(f'{name}: from the Swift toolchain ({path}); build with --static-swift-stdlib')
        else:
            libraries[name] = path
    found = owned(set().union(*(candidates(path) for path in libraries.values())) if libraries else set())
    for name, path in libraries.items():
        if not candidates(path) & found:
            problems.append(f'{name}: {path} belongs to no Debian package')
    for problem in problems:
        print(f'{binary}: {problem}', file=sys.stderr)
    if not problems:
        print(f'{binary}: {len(libraries)} shared libraries, each from a Debian package')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
