"""Damages every entry of a Kiln compile cache directory, for compile-cache.test.

usage: corrupt-cache.py flip|truncate|swap|garbage DIR
  flip      flip one byte in the middle of the object
  truncate  drop the last 100 bytes
  swap      give each entry the bytes of another (valid, foreign) entry
  garbage   replace each entry with text
"""
import os
import sys

mode, directory = sys.argv[1], sys.argv[2]
entries = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".kobj"))
if not entries:
    sys.exit("no cache entries in " + directory)
contents = [open(p, "rb").read() for p in entries]
for i, path in enumerate(entries):
    data = bytearray(contents[i])
    if mode == "flip":
        data[len(data) // 2] ^= 0xFF
    elif mode == "truncate":
        data = data[:-100]
    elif mode == "swap":
        if len(entries) < 2:
            sys.exit("swap needs two entries")
        data = contents[(i + 1) % len(entries)]
    elif mode == "garbage":
        data = b"this is not an object file\n"
    else:
        sys.exit("unknown mode " + mode)
    with open(path, "wb") as f:
        f.write(data)
