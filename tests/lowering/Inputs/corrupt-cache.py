"""Damages every entry of a Kiln compile cache directory, for compile-cache.test.

usage: corrupt-cache.py MODE DIR
  flip      flip one byte in the middle of the object
  truncate  drop the last 100 bytes
  swap      give each entry the bytes of another (valid, foreign) entry
  garbage   replace each entry with text
  forge     give each entry another entry's object under its own key, with
            the right size and SHA-256 (what someone who can write the
            directory but cannot read its secret could do)
  fifo      replace each entry with a FIFO
  zero      replace each entry with a symbolic link to /dev/zero
  shared    make each entry writable by group and others
"""
import hashlib
import os
import stat
import sys

MAGIC, DIGEST = 8, 32

mode, directory = sys.argv[1], sys.argv[2]
entries = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".kobj"))
if not entries:
    sys.exit("no cache entries in " + directory)
# Entries already replaced by a FIFO or a link (by an earlier mode) are left
# alone: reading a FIFO would block.
entries = [p for p in entries if stat.S_ISREG(os.lstat(p).st_mode)]
if not entries:
    sys.exit("no regular cache entries in " + directory)
contents = [open(p, "rb").read() for p in entries]
for i, path in enumerate(entries):
    if mode in ("fifo", "zero", "shared"):
        if mode == "shared":
            os.chmod(path, os.stat(path).st_mode | stat.S_IWGRP | stat.S_IWOTH)
            continue
        os.remove(path)
        if mode == "fifo":
            os.mkfifo(path, 0o600)
        else:
            os.symlink("/dev/zero", path)
        continue
    data = bytearray(contents[i])
    if mode == "flip":
        data[len(data) // 2] ^= 0xFF
    elif mode == "truncate":
        data = data[:-100]
    elif mode == "swap":
        if len(entries) < 2:
            sys.exit("swap needs two entries")
        data = contents[(i + 1) % len(entries)]
    elif mode == "forge":
        if len(entries) < 2:
            sys.exit("forge needs two entries")
        other = contents[(i + 1) % len(entries)]
        header = MAGIC + DIGEST + 8 + 2 * DIGEST
        obj = other[header:]
        code = bytes(data[MAGIC + DIGEST + 8 + DIGEST:header])
        data = (bytes(data[:MAGIC + DIGEST]) + len(obj).to_bytes(8, "little") +
                hashlib.sha256(obj).digest() + code + obj)
    elif mode == "garbage":
        data = b"this is not an object file\n"
    else:
        sys.exit("unknown mode " + mode)
    with open(path, "wb") as f:
        f.write(data)
