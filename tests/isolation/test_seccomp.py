# SPDX-License-Identifier: Apache-2.0
"""docs/design.md ("The sandbox step by step"), seccomp: escape and kernel-manipulation calls kill the
process (SIGSYS, exit_code 159); namespace creation answers EPERM and the
program carries on; clone3 answers ENOSYS; io_uring answers EPERM; x32
numbers and other ABIs are killed.  Raw calls go through ctypes' syscall()."""

import errno

import pytest

from gaol_isolation import SYSCALL, assert_killed_by_sigsys, py

# x86_64 numbers
NR = {
    "ptrace": 101, "mount": 165, "setns": 308, "keyctl": 250, "bpf": 321,
    "unshare": 272, "clone": 56, "clone3": 435, "io_uring_setup": 425,
    "getpid": 39,
}
PTRACE_TRACEME, PTRACE_ATTACH = 0, 16
X32_SYSCALL_BIT = 0x40000000
CLONE_NEW = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000, "CLONE_NEWTIME": 0x00000080,
}
SIGCHLD = 17

# docs/design.md ("The sandbox step by step"): "mount/namespace/kernel-manipulation/tracing calls killed":
# the whole table of core/slot/seccomp_policy.c, by x86_64 number (the kernel's,
# whatever libseccomp's own table knows of them).
DENYLIST = {
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "setns": 308,
    "seccomp": 317, "bpf": 321, "keyctl": 250, "add_key": 248, "request_key": 249,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246,
    "kexec_file_load": 320, "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163,
    "quotactl": 179, "quotactl_fd": 443, "perf_event_open": 298, "ptrace": 101,
    "process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
    "pidfd_getfd": 438, "kcmp": 312, "userfaultfd": 323, "iopl": 172, "ioperm": 173,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "lookup_dcookie": 212,
    "nfsservctl": 180, "personality": 135, "uselib": 134, "vhangup": 153,
    "open_tree": 428, "open_tree_attr": 467, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}


def killed_call(service, call):
    """Says BEFORE, makes `call` (python using syscall()), says AFTER."""
    return py(service, SYSCALL + """
say("BEFORE")
r = %s
say("AFTER %%r" %% (r,))
result = r
""" % call)


def test_ptrace_traceme_kills_the_process(service):
    run = killed_call(service, "syscall(%d, %d, 0, 0, 0)" % (NR["ptrace"], PTRACE_TRACEME))
    assert_killed_by_sigsys(run)


def test_ptrace_attach_to_a_child_kills_the_process(service):
    run = py(service, SYSCALL + """
import time
child = os.fork()
if child == 0:
    time.sleep(30)
    os._exit(0)
say("BEFORE")
r = syscall(%d, %d, child, 0, 0)
say("AFTER %%r" %% (r,))
result = r
""" % (NR["ptrace"], PTRACE_ATTACH))
    assert_killed_by_sigsys(run)


def test_mount_kills_the_process(service):
    run = killed_call(service, 'syscall(%d, b"none", b"/tmp", b"tmpfs", 0, None)' % NR["mount"])
    assert_killed_by_sigsys(run)


def test_setns_kills_the_process(service):
    run = killed_call(service, "syscall(%d, os.open('/proc/self/ns/uts', os.O_RDONLY), 0)"
                      % NR["setns"])
    assert_killed_by_sigsys(run)


def test_keyctl_kills_the_process(service):
    # KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3)
    run = killed_call(service, "syscall(%d, 0, -3, 0)" % NR["keyctl"])
    assert_killed_by_sigsys(run)


def test_bpf_kills_the_process(service):
    run = killed_call(service, "syscall(%d, 0, None, 0)" % NR["bpf"])
    assert_killed_by_sigsys(run)


def test_x32_syscall_kills_the_process(service):
    run = killed_call(service, "syscall(%d)" % (NR["getpid"] | X32_SYSCALL_BIT))
    assert_killed_by_sigsys(run)


def test_i386_abi_kills_the_process(service):
    # getpid through int 0x80 (the i386 ABI, which this host's kernel serves:
    # the same code returns the pid on the host), from an executable page.
    run = py(service, SYSCALL + """
import mmap
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(b"\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3")   # mov eax, 20; int 0x80; ret
fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
say("BEFORE")
r = fn()
say("AFTER %r" % (r,))
result = r
""")
    assert_killed_by_sigsys(run)


@pytest.mark.parametrize("name", sorted(DENYLIST))
def test_every_denylisted_syscall_kills_the_process(service, name):
    # Harmless arguments: a call that is let through fails or does nothing.
    run = killed_call(service, 'syscall(%d, -100, b"/tmp", 0, None, 0, 0)' % DENYLIST[name])
    assert_killed_by_sigsys(run)


def test_unshare_of_any_namespace_is_refused_with_eperm_and_the_program_continues(service):
    run = py(service, SYSCALL + """
result = {}
for name, flag in %r.items():
    result[name] = syscall(%d, flag)
say("CONTINUED")
""" % (CLONE_NEW, NR["unshare"]))
    assert run.status == 200 and run.reported, run
    assert "CONTINUED" in run.stdout, run
    assert run["exit_code"] == 0, run
    for name in CLONE_NEW:
        assert run.result[name] == [-1, errno.EPERM], \
            "unshare(%s) answered %r, expected -1 EPERM" % (name, run.result[name])


def test_clone_with_a_new_namespace_is_refused_with_eperm(service):
    flags = {k: v for k, v in CLONE_NEW.items() if k != "CLONE_NEWTIME"}
    run = py(service, SYSCALL + """
result = {}
for name, flag in %r.items():
    r = syscall(%d, flag | %d, 0, 0, 0, 0)
    if r[0] == 0:
        os._exit(0)                     # the child, had the clone worked
    if r[0] > 0:
        os.waitpid(r[0], 0)
    result[name] = r
say("CONTINUED")
""" % (flags, NR["clone"], SIGCHLD))
    assert run.status == 200 and run.reported, run
    assert "CONTINUED" in run.stdout, run
    for name in flags:
        assert run.result[name] == [-1, errno.EPERM], \
            "clone(%s) answered %r, expected -1 EPERM" % (name, run.result[name])


def test_clone3_is_refused_with_enosys(service):
    run = py(service, SYSCALL + """
args = ctypes.create_string_buffer(88)      # struct clone_args, all zero: a fork
r = syscall(%d, args, 88)
if r[0] == 0:
    os._exit(0)
result = r
say("CONTINUED")
""" % NR["clone3"])
    assert run.status == 200 and run.reported, run
    assert run.result == [-1, errno.ENOSYS], run
    assert "CONTINUED" in run.stdout and run["exit_code"] == 0, run


def test_io_uring_setup_is_refused_with_eperm(service):
    run = py(service, SYSCALL + """
params = ctypes.create_string_buffer(120)   # struct io_uring_params
result = {"setup": syscall(%d, 8, params),
          "enter": syscall(%d, 0, 1, 0, 0, None, 0),
          "register": syscall(%d, 0, 0, None, 0)}
say("CONTINUED")
""" % (NR["io_uring_setup"], NR["io_uring_setup"] + 1, NR["io_uring_setup"] + 2))
    assert run.status == 200 and run.reported, run
    for call in ("setup", "enter", "register"):
        assert run.result[call] == [-1, errno.EPERM], "io_uring_%s: %r" % (call, run.result)
    assert "CONTINUED" in run.stdout and run["exit_code"] == 0, run


# Socket families the payload may open (issue 11, finding 7); every other one
# answers EAFNOSUPPORT.  vsock is the one that matters most: a network
# namespace does not isolate it, and on a VM host it reaches the hypervisor.
AF = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
AF_REFUSED = {"AF_UNSPEC": 0, "AF_AX25": 3, "AF_X25": 9, "AF_KEY": 15, "AF_PACKET": 17,
              "AF_RDS": 21, "AF_CAN": 29, "AF_TIPC": 30, "AF_BLUETOOTH": 31,
              "AF_ALG": 38, "AF_VSOCK": 40, "AF_XDP": 44, "AF_MCTP": 45,
              "past AF_MAX": 100, "AF_VSOCK with high bits": (1 << 32) | 40,
              "AF_INET with high bits": (1 << 32) | 2}
SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET = 1, 2, 3, 5
NETLINK_ROUTE, NETLINK_SOCK_DIAG, NETLINK_KOBJECT_UEVENT = 0, 4, 15


def test_socket_families_other_than_unix_inet_inet6_and_netlink_answer_eafnosupport(service):
    run = py(service, SYSCALL + """
result = {"refused": {}, "socketpair": {}, "allowed": {}, "netlink": {}}
for name, family in %r.items():
    # each type the family might take: none may give a socket
    result["refused"][name] = sorted({syscall(41, family, t, 0)[1] if syscall(41, family, t, 0)[0] < 0
                                      else "socket" for t in (%d, %d, %d, %d)})
    fds = (ctypes.c_int * 2)()
    r, e = syscall(53, family, %d, 0, fds)
    result["socketpair"][name] = e if r < 0 else "pair"
for name, family in %r.items():
    r, e = syscall(41, family, %d if name != "AF_NETLINK" else %d, 0)
    result["allowed"][name] = "socket" if r >= 0 else e
for proto in (%d, %d):
    r, e = syscall(41, 16, %d, proto)
    result["netlink"][proto] = "socket" if r >= 0 else e
import socket
result["getaddrinfo"] = socket.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)[0][4][0]
""" % (AF_REFUSED, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_STREAM, AF,
       SOCK_DGRAM, SOCK_RAW, NETLINK_SOCK_DIAG, NETLINK_KOBJECT_UEVENT, SOCK_RAW))
    assert run.status == 200 and run.reported, run
    res = run.result
    for name in AF_REFUSED:
        assert res["refused"][name] == [errno.EAFNOSUPPORT], \
            "socket(%s) inside gave %r, not only EAFNOSUPPORT" % (name, res["refused"][name])
        assert res["socketpair"][name] == errno.EAFNOSUPPORT, \
            "socketpair(%s) inside gave %r" % (name, res["socketpair"][name])
    # The families the languages use still work, and so does the resolver
    # (glibc asks netlink for the interfaces).
    assert res["allowed"] == {name: "socket" for name in AF}, res["allowed"]
    for proto, outcome in res["netlink"].items():
        assert outcome == errno.EPROTONOSUPPORT, \
            "netlink protocol %s inside gave %r" % (proto, outcome)
    assert res["getaddrinfo"] in ("127.0.0.1", "::1"), res
