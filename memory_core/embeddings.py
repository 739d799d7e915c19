"""The embedding model: fastembed, loaded only from disk (hooks and CLIs never touch the
network), imported only when vectors are actually needed (fastembed is slow to import).

The model runs each call on one thread, and a set of batches as that many calls in parallel
(onnxruntime releases the GIL): onnxruntime's own thread pool spins its threads after every
call, taking the core the keyword search beside a query's embedding needs (docs/benchmarks.md
"Hybrid search: thread pools"). A warm process that answers one query at a time (the MCP
server) loads it with a thread per core instead: a lone query's embedding is its wait.
Documents are sorted by length and cut into batches of similar length (a batch is padded to
its longest text, so one long text would make every short one in its batch cost as much),
and a small set is split so every core works.
"""
from __future__ import annotations

import os
from pathlib import Path

from .config import model_cache_dir, model_settings
from .errors import UserError

WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count() or 1))
MAX_BATCH = 32  # texts
BATCH_TOKENS = 2048  # texts x the longest one's tokens: a batch's padded size
# Tokens of a text the model reads. jina's reads 8,192, but attention's memory grows with the
# square of the length (docs/benchmarks.md "Production model"). A MEMORY.md chunk is at most
# ~400 tokens, and a long record is also indexed line by line (sync.parts), so nothing is
# lost to the cut.
MAX_TOKENS = 512


def plan_batches(texts: list, workers: int = WORKERS) -> list:
    """Index batches ([[i, ...]]) for these texts: sorted by estimated length, each batch at
    most MAX_BATCH texts and BATCH_TOKENS padded tokens, and never fewer batches than
    `workers` while there are texts to share (every core works on a small set)."""
    from .text import count_tokens

    if not texts:
        return []
    size = {i: max(1, count_tokens(t)) for i, t in enumerate(texts)}
    order = sorted(size, key=size.get)
    cap = max(1, min(MAX_BATCH, -(-len(order) // max(1, workers))))
    batches, current, longest = [], [], 0
    for i in order:
        if current and (len(current) >= cap or max(longest, size[i]) * (len(current) + 1) > BATCH_TOKENS):
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, size[i])
    if current:
        batches.append(current)
    return batches


class Embedder:
    """A loaded model: `embed(texts)` for documents, `embed_query(text)` for a query.
    Both return L2-normalised float32 numpy arrays."""

    def __init__(self, identity: str, model, workers: int = WORKERS):
        self.model = model
        self.identity = identity  # what the index records; a change means new vectors
        self.dims: int | None = None
        self.workers = workers
        self._pool = None

    def embed(self, texts: list):
        """Vectors for documents, in order."""
        np = _np()
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        batches = plan_batches(texts, self.workers)
        out = np.empty((len(texts), 0), dtype=np.float32)
        for batch, vecs in zip(batches, self.embed_batches([[texts[i] for i in b] for b in batches])):
            if out.shape[1] == 0:
                out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
            out[batch] = vecs
        return out

    def embed_batches(self, batches: list) -> list:
        """[matrix per batch], the batches run `workers` at a time in parallel."""
        if len(batches) > 1 and self.workers > 1:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="cm-embed")
            return list(self._pool.map(self._embed_batch, batches))
        return [self._embed_batch(b) for b in batches]

    def _embed_batch(self, texts: list):
        np = _np()
        m = np.asarray(list(self.model.passage_embed(texts, batch_size=len(texts))),
                       dtype=np.float32)
        return _normalise(m, self)

    def embed_query(self, text: str):
        np = _np()
        out = np.asarray(list(self.model.query_embed(text)), dtype=np.float32)
        return _normalise(out, self)[0]


def _np():
    import numpy as np
    return np


def _normalise(m, embedder):
    np = _np()
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    embedder.dims = m.shape[1]
    return m / norms


def describe(root) -> str:
    """The configured model in one line, without loading it."""
    name, path = model_settings(Path(root))
    return f"{name} from {path}" if path else name


def load(root, *, quiet: bool = False, threads: int = 1) -> Embedder | None:
    """The configured model from local files, or None (with one notice) when it is not
    there: search then answers with keywords only. `threads`: onnxruntime threads per call
    (1 unless the process answers one query at a time and nothing else runs beside it)."""
    name, path = model_settings(Path(root))
    try:
        return _load(name, path, threads)
    except UserError as e:
        if not quiet:
            from .log import note
            note(str(e))
        return None


_LOADED: dict = {}


def _load(name: str, path: str | None, threads: int = 1) -> Embedder:
    key = (name, path, threads)
    if key in _LOADED:
        return _LOADED[key]
    if path and not os.path.isfile(os.path.join(path, "model.onnx")) and not any(
            Path(path).glob("**/*.onnx")):
        raise UserError(f"no model.onnx in the model folder {path}; keyword search only")
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from fastembed import TextEmbedding
        _quiet_fastembed()
    except ImportError:
        raise UserError("fastembed is not installed; keyword search only") from None
    kwargs = {"cache_dir": str(model_cache_dir()), "local_files_only": True, "threads": threads}
    if path:
        kwargs["specific_model_path"] = path
    try:
        model = TextEmbedding(name, **kwargs)
    except ValueError as e:
        if "not supported" in str(e):
            raise UserError(f"fastembed does not know the model {name!r}") from None
        raise UserError(f"embedding model {name} is not available offline "
                        "(run `cursor-memory model download`); keyword search only") from None
    except Exception:  # noqa: BLE001 - a missing or broken download, whatever fastembed raises
        raise UserError(f"embedding model {name} is not downloaded "
                        "(run `cursor-memory model download`); keyword search only") from None
    _cap_tokens(model)
    # batches in parallel only when each runs on one thread (more would fight for the cores)
    embedder = Embedder(name, model, workers=WORKERS if threads == 1 else 1)
    _LOADED[key] = embedder
    return embedder


def _cap_tokens(model) -> None:
    """Truncate inputs at MAX_TOKENS (or the model's own limit, if smaller)."""
    tokenizer = getattr(getattr(model, "model", None), "tokenizer", None)
    if tokenizer is None or not hasattr(tokenizer, "enable_truncation"):
        return
    current = (tokenizer.truncation or {}).get("max_length") or MAX_TOKENS
    tokenizer.enable_truncation(max_length=min(current, MAX_TOKENS),
                                direction=(tokenizer.truncation or {}).get("direction", "right"))


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
        raise UserError(f"the model is configured as a local folder ({path}); nothing to download")
    os.environ.pop("HF_HUB_OFFLINE", None)
    from fastembed import TextEmbedding
    try:
        from loguru import logger
        logger.enable("fastembed")
    except ImportError:
        pass

    supported = {m.get("model") for m in TextEmbedding.list_supported_models()}
    if name not in supported:
        raise UserError(f"fastembed does not know the model {name!r}: set a model it lists "
                        "(`python -c \"from fastembed import TextEmbedding; "
                        "print(TextEmbedding.list_supported_models())\"`), or a local model_path")
    cache = model_cache_dir()
    made = not cache.exists()
    cache.mkdir(parents=True, exist_ok=True)
    try:
        TextEmbedding(name, cache_dir=str(cache))
    except Exception as e:  # noqa: BLE001 - whatever the download raised: one line
        if made:
            import shutil
            shutil.rmtree(cache, ignore_errors=True)
        raise UserError(f"could not download {name} ({type(e).__name__}: {str(e)[:160]}); "
                        "check the network, then run `cursor-memory model download` again") from None
    return f"{name} is in {cache}"
