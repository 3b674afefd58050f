#!/usr/bin/env python3
"""Runs COMMAND under the system call sandbox a systemd unit describes, without systemd: a seccomp
filter built from the unit's SystemCallFilter= lines (applied in order, groups expanded by
`systemd-analyze syscall-filter`; a call outside the list fails with SystemCallErrorNumber=, as
systemd makes it) and RestrictAddressFamilies= (socket() of another family fails with
EAFNOSUPPORT, as systemd makes it). x86-64 only. The filter is the kernel's own, as systemd's is;
what it leaves out are the unit's other settings (namespaces, devices, users).

    python3 Tests/Package/sandbox-exec.py UNIT-FILE COMMAND [ARGUMENT...]
"""
import ctypes
import errno
import os
import re
import socket
import subprocess
import sys

unit_file, command = sys.argv[1], sys.argv[2:]

listing = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True, check=True).stdout
groups, current = {}, None
for line in listing.splitlines():
    if line.startswith("@"):
        current = groups.setdefault(line.split()[0], [])
    elif current is not None and line.strip() and not line.strip().startswith("#"):
        current.append(line.strip())


def expand(names, seen=()):
    out = set()
    for name in names:
        if name.startswith("@"):
            if name not in seen:
                out |= expand(groups[name], seen + (name,))
        else:
            out.add(name)
    return out


allowed, families, error = None, None, errno.EPERM
for line in open(unit_file):
    key, _, value = line.strip().partition("=")
    if key == "SystemCallFilter":
        deny = value.startswith("~")
        names = expand(value.lstrip("~").split())
        if allowed is None:
            if deny:
                sys.exit("sandbox-exec.py: a deny-list SystemCallFilter first is not supported")
            allowed = names
        elif deny:
            allowed -= names
        else:
            allowed |= names
    elif key == "SystemCallErrorNumber":
        error = getattr(errno, value)
    elif key == "RestrictAddressFamilies":
        families = [getattr(socket, name) for name in value.split()]
if allowed is None or families is None:
    sys.exit("sandbox-exec.py: the unit has no SystemCallFilter allow list or no RestrictAddressFamilies")

numbers = {}
for line in open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"):
    match = re.match(r"#define __NR_(\w+) (\d+)", line)
    if match:
        numbers[match.group(1)] = int(match.group(2))
allowed_numbers = sorted(numbers[name] for name in allowed if name in numbers)

# Classic BPF over struct seccomp_data: nr at 0, arch at 4, args[0] (low half) at 16. Each
# comparison is followed by its own return, so that no jump is longer than one instruction.
LD, JEQ, JA, RET = 0x20, 0x15, 0x05, 0x06
ALLOW, ERRNO, KILL = 0x7FFF0000, 0x00050000, 0x80000000
AUDIT_ARCH_X86_64 = 0xC000003E
program = [(LD, 0, 0, 4), (JEQ, 1, 0, AUDIT_ARCH_X86_64), (RET, 0, 0, KILL), (LD, 0, 0, 0)]
if "socket" in allowed:
    program += [(JEQ, 0, 1, numbers["socket"]), (JA, 0, 0, None)]  # to the family checks
    jump = len(program) - 1
for number in allowed_numbers:
    program += [(JEQ, 0, 1, number), (RET, 0, 0, ALLOW)]
program.append((RET, 0, 0, ERRNO | error))
if "socket" in allowed:
    program[jump] = (JA, 0, 0, len(program) - jump - 1)
    program.append((LD, 0, 0, 16))
    for family in families:
        program += [(JEQ, 0, 1, family), (RET, 0, 0, ALLOW)]
    program.append((RET, 0, 0, ERRNO | errno.EAFNOSUPPORT))
assert len(program) <= 4096, "filter longer than the kernel takes"


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


filters = (SockFilter * len(program))(*[SockFilter(*instruction) for instruction in program])
fprog = SockFprog(len(program), filters)
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit(f"sandbox-exec.py: PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}")
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit(f"sandbox-exec.py: PR_SET_SECCOMP: {os.strerror(ctypes.get_errno())}")
os.execv(command[0], command)
