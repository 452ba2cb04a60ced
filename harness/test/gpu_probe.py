"""Whether the harness's Python test drivers (reproduce_quick.py, multi_gpu_dry_run.py) have a
GPU to run on."""

import os
import shutil
import subprocess


def has_gpu() -> bool:
    """True when CUDA_VISIBLE_DEVICES does not hide every GPU and `nvidia-smi -L` lists one."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        return False
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    out = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return out.returncode == 0 and "GPU" in out.stdout
