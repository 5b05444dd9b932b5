"""Writes the mlc wheel: make_wheel.py OUT.whl VERSION FILE...

FILEs are the assembled package (site/mlc/...); each goes in as mlc/<name>. The wheel is for
the machine's platform and CPython (its _mlc.so links the Debian libraries the build used).
"""
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile

FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # reproducible archives: same inputs, same bytes


def main(out, version, files):
    dist_info = f"mlc-{version}.dist-info"
    python_tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform_tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    entries = {}
    for path in sorted(files):
        with open(path, "rb") as f:
            entries[f"mlc/{os.path.basename(path)}"] = f.read()
    entries[f"{dist_info}/METADATA"] = (
        "Metadata-Version: 2.1\nName: mlc\nVersion: " + version + "\n"
        "Summary: An end-to-end machine-learning compiler: PyTorch, ONNX and TVMScript models to native code\n"
        "Requires-Python: >=3.11\nRequires-Dist: numpy\n").encode()
    entries[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: mlc make_wheel.py\nRoot-Is-Purelib: false\n"
        f"Tag: {python_tag}-{python_tag}-{platform_tag}\n").encode()
    record = []
    for name, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
