#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/ptyrun.py - runs a command with its stderr on a terminal (a
pseudo-terminal), as a person at a shell has it, for the tests of progress
lines (t0115); standard library only.

  ptyrun.py ERR CMD...   stdout goes to our stdout; what the command wrote
                         to the terminal goes to the file ERR, bytes as
                         written (carriage returns, escapes).  Exits with
                         the command's status.
"""
import os
import pty
import subprocess
import sys
import threading

if len(sys.argv) < 3:
    print(__doc__)
    sys.exit(2)
master, slave = pty.openpty()
got = []


def drain():
    # read while the command runs: a full terminal buffer would stop it
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:
            return
        if not b:
            return
        got.append(b)


t = threading.Thread(target=drain)
t.start()
p = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stderr=slave)
os.close(slave)
t.join(10)
with open(sys.argv[1], 'wb') as f:
    f.write(b''.join(got))
sys.exit(p.returncode)
