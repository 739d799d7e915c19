"""The embedding model: fastembed, loaded only from disk (hooks and CLIs never touch the
network), imported only when vectors are actually needed (fastembed costs ~0.5 s to import).
"""
from __future__ import annotations

import os
from pathlib import Path

from .config import MemoryError, model_cache_dir, model_settings


# The model runs each call on one thread, and a batch of documents as several calls in
# parallel (onnxruntime releases the GIL). onnxruntime's own thread pool spins its threads
# after every call: on 2 cores they held the core the keyword search beside the query's
# embedding needed (with numpy's BLAS pool, a warm 100k search took 75 ms, now 26), while
# parallel single-threaded calls embed documents as fast as the pool (97-106% of it).
# docs/benchmarks.md "Hybrid search: thread pools".
WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count() or 1))
BATCH = 64


class Embedder:
    """A loaded model: `embed(texts)` for documents, `embed_query(text)` for a query.
    Both return L2-normalised float32 numpy arrays."""

    def __init__(self, name: str, model, identity: str):
        self.name = name
        self.model = model
        self.identity = identity  # what the index records; a change means new vectors
        self.dims: int | None = None
        self._pool = None

    def embed(self, texts: list[str]):
        """Vectors for documents, in order; batches of BATCH run WORKERS at a time."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        batches = [texts[i:i + BATCH] for i in range(0, len(texts), BATCH)]
        if len(batches) > 1 and WORKERS > 1:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="cm-embed")
            parts = list(self._pool.map(self._embed_batch, batches))
        else:
            parts = [self._embed_batch(b) for b in batches]
        return _normalise(np.concatenate(parts), self)

    def _embed_batch(self, texts: list[str]):
        import numpy as np

        return np.asarray(list(self.model.passage_embed(texts, batch_size=len(texts))),
                          dtype=np.float32)

    def embed_query(self, text: str):
        import numpy as np

        out = np.asarray(list(self.model.query_embed(text)), dtype=np.float32)
        return _normalise(out, self)[0]


def _normalise(m, embedder):
    import numpy as np

    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    embedder.dims = m.shape[1]
    return m / norms


def describe(root) -> str:
    """The configured model in one line, without loading it."""
    name, path = model_settings(Path(root))
    return f"{name} from {path}" if path else name


def model_identity(root) -> str:
    name, path = model_settings(Path(root))
    return name


def load(root, *, quiet: bool = False) -> Embedder | None:
    """The configured model from local files, or None (with one note on stderr) when it is
    not there: search then answers with keywords only."""
    name, path = model_settings(Path(root))
    try:
        return _load(name, path)
    except MemoryError as e:
        if not quiet:
            import sys
            print(f"cursor-memory: {e}", file=sys.stderr)
        return None


_LOADED: dict = {}


def _load(name: str, path: str | None) -> Embedder:
    key = (name, path)
    if key in _LOADED:
        return _LOADED[key]
    if path and not os.path.isfile(os.path.join(path, "model.onnx")) and not any(
            Path(path).glob("**/*.onnx")):
        raise MemoryError(f"no model.onnx in CURSOR_MEMORY_MODEL_PATH {path}; "
                          "keyword search only")
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from fastembed import TextEmbedding
        _quiet_fastembed()
    except ImportError:
        raise MemoryError("fastembed is not installed; keyword search only") from None
    kwargs = {"cache_dir": str(model_cache_dir()), "local_files_only": True, "threads": 1}
    if path:
        kwargs["specific_model_path"] = path
    try:
        model = TextEmbedding(name, **kwargs)
    except ValueError as e:
        if "not supported" in str(e):
            raise MemoryError(f"fastembed does not know the model {name!r}") from None
        raise MemoryError(f"embedding model {name} is not available offline "
                          "(run `cursor-memory model download`); keyword search only") from None
    except Exception:  # noqa: BLE001 - a missing or broken download, whatever fastembed raises
        raise MemoryError(f"embedding model {name} is not downloaded "
                          "(run `cursor-memory model download`); keyword search only") from None
    embedder = Embedder(name, model, name)
    _LOADED[key] = embedder
    return embedder


def _quiet_fastembed() -> None:
    """fastembed logs an ERROR through loguru when a model is not on disk; we say it once,
    our way."""
    try:
        from loguru import logger
        logger.disable("fastembed")
    except ImportError:
        pass


def download(root) -> str:
    """Fetch the configured model into the persistent cache (with huggingface's progress
    bars). The only place that goes to the network."""
    name, path = model_settings(Path(root))
    if path:
        raise MemoryError(f"the model is configured as a local folder ({path}); nothing to download")
    os.environ.pop("HF_HUB_OFFLINE", None)
    from fastembed import TextEmbedding
    try:
        from loguru import logger
        logger.enable("fastembed")
    except ImportError:
        pass

    cache = model_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    TextEmbedding(name, cache_dir=str(cache))
    return f"{name} is in {cache}"
