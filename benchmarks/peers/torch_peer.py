#!/usr/bin/python3
"""The PyTorch peer: our model in PyTorch, checked against the C++ and timed the same way.

  /usr/bin/python3 benchmarks/peers/torch_peer.py --reference build/bench/reference.json \\
      --out build/bench/torch_peer.json [--smoke]

scripts/run_benchmarks.sh runs it after the C++ benchmarks. It needs Debian's
python3-torch (PyTorch 1.13 on OpenBLAS) and NumPy; without torch it prints one
line saying so and exits 0, so the rest of the run goes on without the peer.

1. Loads the checkpoint that bench_dump_logits names in the reference file (our
   safetensors; with the `safetensors` package when present, else read here with
   struct + NumPy: 8-byte little-endian header length, JSON header, raw data) and
   rebuilds the same model: pre-LayerNorm blocks, exact GELU, LayerNorm eps 1e-5,
   tied wte, Linear weights stored (out, in), qkv rows q | k | v.
2. Checks it against the C++: last-position logits of the reference prompts, with
   and without its KV cache, and the 32 greedy characters. A mismatch is printed and
   the exit status is 1 (after the JSON is written).
   With --blas-as-installed it leaves OpenBLAS to choose its kernels, as a plain
   `import torch` does (on these machines OpenBLAS 0.3.21 does not know the CPU and
   takes its slow Prescott kernels); by default it names the same kernels as the C++.
3. Times, on ONE thread (torch.set_num_threads(1)), writing 32 / 64 / 120 characters
   after a newline at T 0.8 with top-k 20, without a cache (the whole context again
   each step) and with its own KV cache (preallocated, one position per step): the
   same work as lesson06/write_chars in bench_06_kvcache. Median of --repeats runs.
4. Times one training step on TWO threads: batch 32 x 128 random ids, forward,
   cross-entropy, backward, gradient clipping at 1.0, AdamW (betas 0.9/0.95, weight
   decay 0.1 on matrices): tokens/s, median of --train-steps steps after one warm-up.
"""

import argparse
import json
import math
import os
import platform
import statistics
import struct
import sys
import time


def choose_openblas_kernels():
    """Same as common/fast/blas_cores.cpp: Debian's OpenBLAS 0.3.21 may not recognise this CPU
    and fall back to SSE3 kernels; name the right ones before torch loads OpenBLAS."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
    except OSError:
        return
    if "avx512f" in flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
    elif "avx2" in flags:
        os.environ["OPENBLAS_CORETYPE"] = "Haswell"


# --blas-as-installed: leave OpenBLAS to pick its kernels itself, as a plain
# `import torch` does on this machine (it must be decided before torch loads).
if "--blas-as-installed" not in sys.argv:
    choose_openblas_kernels()
try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as missing:  # the peer is optional
    print(f"torch_peer: skipped, {missing.name} is not installed "
          "(apt-get install python3-torch python3-numpy)")
    sys.exit(0)


# --- the checkpoint -------------------------------------------------------------
DTYPES = {"F32": np.float32, "I32": np.int32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path):
    """(tensors as float32 torch tensors, metadata dict)."""
    with open(path, "rb") as f:
        blob = f.read()
    (header_length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_length])
    metadata = header.pop("__metadata__", {})
    try:
        from safetensors.torch import load_file  # optional; Debian bookworm has no package
        return load_file(path), metadata
    except ImportError:
        pass
    data = memoryview(blob)[8 + header_length:]
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors, metadata


# --- the model ------------------------------------------------------------------
class Block(torch.nn.Module):
    def __init__(self, C, NH):
        super().__init__()
        self.NH = NH
        self.ln_1 = torch.nn.LayerNorm(C, eps=1e-5)
        self.qkv = torch.nn.Linear(C, 3 * C)
        self.proj = torch.nn.Linear(C, C)
        self.ln_2 = torch.nn.LayerNorm(C, eps=1e-5)
        self.fc = torch.nn.Linear(C, 4 * C)
        self.fc_proj = torch.nn.Linear(4 * C, C)

    def forward(self, x, cache=None, start=0):
        """x (B, T, C). cache: (k, v) buffers (1, NH, T_max, HS) holding positions 0..start-1;
        the new keys/values are written at start..start+T-1."""
        B, T, C = x.shape
        NH, HS = self.NH, C // self.NH
        q, k, v = self.qkv(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, NH, HS).transpose(1, 2) for t in (q, k, v))  # (B, NH, T, HS)
        if cache is not None:
            cache[0][:, :, start:start + T] = k
            cache[1][:, :, start:start + T] = v
            k, v = cache[0][:, :, :start + T], cache[1][:, :, :start + T]
        total = start + T
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(HS)  # (B, NH, T, total)
        if T > 1:  # causal mask shifted by what the cache holds: tril(diagonal = total - T)
            mask = torch.ones(T, total, dtype=torch.bool).tril(diagonal=total - T)
            scores = scores.masked_fill(~mask, float("-inf"))
        y = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x))))  # exact GELU (erf)


class GPT(torch.nn.Module):
    def __init__(self, V, T_max, L, NH, C):
        super().__init__()
        self.V, self.T_max, self.L, self.NH, self.C = V, T_max, L, NH, C
        self.wte = torch.nn.Embedding(V, C)
        self.wpe = torch.nn.Embedding(T_max, C)
        self.blocks = torch.nn.ModuleList(Block(C, NH) for _ in range(L))
        self.ln_f = torch.nn.LayerNorm(C, eps=1e-5)

    def new_cache(self):
        shape = (1, self.NH, self.T_max, self.C // self.NH)
        return [(torch.empty(shape), torch.empty(shape)) for _ in range(self.L)]

    def forward(self, idx, cache=None, start=0, last_only=True):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(start, start + T))
        for layer, block in enumerate(self.blocks):
            x = block(x, None if cache is None else cache[layer], start)
        if last_only:
            x = x[:, -1:, :]
        return self.ln_f(x) @ self.wte.weight.t()  # tied output layer

    def load(self, tensors):
        names = {"wte.weight": self.wte.weight, "wpe.weight": self.wpe.weight,
                 "ln_f.weight": self.ln_f.weight, "ln_f.bias": self.ln_f.bias}
        for l, b in enumerate(self.blocks):
            p = f"h.{l}."
            names.update({p + "ln_1.weight": b.ln_1.weight, p + "ln_1.bias": b.ln_1.bias,
                          p + "attn.qkv.weight": b.qkv.weight, p + "attn.qkv.bias": b.qkv.bias,
                          p + "attn.proj.weight": b.proj.weight, p + "attn.proj.bias": b.proj.bias,
                          p + "ln_2.weight": b.ln_2.weight, p + "ln_2.bias": b.ln_2.bias,
                          p + "mlp.fc.weight": b.fc.weight, p + "mlp.fc.bias": b.fc.bias,
                          p + "mlp.proj.weight": b.fc_proj.weight, p + "mlp.proj.bias": b.fc_proj.bias})
        missing = set(names) ^ set(tensors)
        if missing:
            raise SystemExit(f"torch_peer: checkpoint and model disagree on tensors {sorted(missing)}")
        with torch.no_grad():
            for name, parameter in names.items():
                if tuple(tensors[name].shape) != tuple(parameter.shape):
                    raise SystemExit(f"torch_peer: {name} has shape {tuple(tensors[name].shape)}, "
                                     f"expected {tuple(parameter.shape)}")
                parameter.copy_(tensors[name].float())


def model_from_checkpoint(path):
    tensors, meta = read_safetensors(path)
    model = GPT(int(meta["vocab_size"]), int(meta["block_size"]), int(meta["n_layer"]),
                int(meta["n_head"]), int(meta["n_embd"]))
    model.load(tensors)
    return model.eval()


# --- generation, as lesson 06's write_chars ---------------------------------------
def pick(logits, temperature, top_k, generator):
    logits = logits / temperature
    if top_k:
        kth = torch.topk(logits, top_k).values[-1]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return int(torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator))


@torch.inference_mode()
def write_chars(model, n, use_cache, temperature=0.8, top_k=20, seed=42, first=0):
    """n characters after the newline (id 0); the context is cropped to block size."""
    generator = torch.Generator().manual_seed(seed)
    context = [first]
    cache = model.new_cache() if use_cache else None
    cached = 0  # positions the cache holds
    for _ in range(n):
        window = context[-model.T_max:]
        if use_cache and len(context) <= model.T_max:
            new = torch.tensor([window[cached:]])
            logits = model(new, cache, cached)[0, -1]
            cached = len(window)
        else:  # no cache, or past the context (every position shifts): the whole window again
            logits = model(torch.tensor([window]))[0, -1]
        context.append(pick(logits, temperature, top_k, generator))
    return context[1:]


def median_ms(repeats, fn):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


# --- one training step --------------------------------------------------------------
def train_step_tokens_per_s(model, steps, B=32):
    model.train()
    T, V = model.T_max, model.V
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() != 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=3e-4, betas=(0.9, 0.95), eps=1e-8)
    generator = torch.Generator().manual_seed(3)

    def step():
        batch = torch.randint(0, V, (B, T + 1), generator=generator)
        logits = model(batch[:, :-1], last_only=False)
        loss = F.cross_entropy(logits.reshape(-1, V), batch[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    step()  # warm-up
    seconds = statistics.median(median_ms(1, step) / 1000 for _ in range(steps))
    model.eval()
    return B * T / seconds, seconds


def openblas_core():
    """The kernels OpenBLAS actually chose in this process (e.g. 'Prescott', 'SkylakeX')."""
    import ctypes
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = sorted({line.split()[-1] for line in f if "libopenblas" in line})
        corename = ctypes.CDLL(paths[0]).openblas_get_corename
        corename.restype = ctypes.c_char_p
        return corename().decode()
    except (OSError, IndexError, AttributeError):
        return "unknown"


# --- main -----------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", required=True, help="bench_dump_logits output")
    parser.add_argument("--out", required=True, help="JSON results")
    parser.add_argument("--repeats", type=int, default=3, help="runs per generation timing")
    parser.add_argument("--train-steps", type=int, default=3, help="timed training steps")
    parser.add_argument("--lengths", default="32,64,120")
    parser.add_argument("--smoke", action="store_true", help="1 run each, 32 characters only")
    parser.add_argument("--blas-as-installed", action="store_true",
                        help="do not choose OpenBLAS kernels (default: the same ones as the C++)")
    args = parser.parse_args()
    if args.smoke:
        args.repeats, args.train_steps, args.lengths = 1, 1, "32"

    with open(args.reference, encoding="utf-8") as f:
        reference = json.load(f)
    torch.manual_seed(0)
    model = model_from_checkpoint(reference["checkpoint"])
    result = {"torch_version": torch.__version__, "python": platform.python_version(),
              "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""),
              "openblas_core": openblas_core(), "blas_as_installed": args.blas_as_installed,
              "checkpoint": reference["checkpoint"]}

    # 1. the same logits as the C++?
    torch.set_num_threads(1)
    worst, ok = 0.0, True
    with torch.inference_mode():
        for prompt in reference["prompts"]:
            ids = torch.tensor([prompt["ids"]])
            ours = torch.tensor(prompt["logits"])
            full = model(ids)[0, -1]
            cache = model.new_cache()  # prefill all but the last, then one cached step
            if ids.shape[1] > 1:
                model(ids[:, :-1], cache, 0)
            stepped = model(ids[:, -1:], cache, ids.shape[1] - 1)[0, -1]
            for theirs in (full, stepped):
                diff = float((theirs - ours).abs().max())
                worst = max(worst, diff)
                ok &= diff <= 1e-3 * max(1.0, float(ours.abs().max()))
    greedy = []
    with torch.inference_mode():
        context = [0]
        for _ in range(len(reference["greedy"])):
            context.append(int(model(torch.tensor([context]))[0, -1].argmax()))
        greedy = context[1:]
    greedy_same = greedy == reference["greedy"]
    result["logits_max_abs_diff"] = worst
    result["logits_match"] = bool(ok)
    result["greedy_match"] = greedy_same
    print(f"torch_peer: OpenBLAS kernels {result['openblas_core']}"
          f"{' (as installed)' if args.blas_as_installed else ' (chosen like the C++)'}")
    print(f"torch_peer: logits vs C++ max |diff| {worst:.2e} ({'match' if ok else 'MISMATCH'}), "
          f"greedy 32 characters {'identical' if greedy_same else 'DIFFERENT'}")

    # 2. generation, one thread
    lengths = [int(n) for n in args.lengths.split(",")]
    same_text = write_chars(model, 32, True) == write_chars(model, 32, False)
    result["cache_same_text"] = same_text
    result["generate"] = {}
    for n in lengths:
        write_chars(model, n, True)  # warm-up
        without = median_ms(args.repeats, lambda: write_chars(model, n, False))
        with_cache = median_ms(args.repeats, lambda: write_chars(model, n, True))
        result["generate"][str(n)] = {"no_cache_ms": without, "cache_ms": with_cache}
        print(f"torch_peer: {n:4d} characters  without cache {without:9.1f} ms   "
              f"with cache {with_cache:8.1f} ms   ({n / with_cache * 1000:.0f} characters/s)")
    result["generate_threads"] = 1

    # 3. training, two threads
    torch.set_num_threads(2)
    tokens_per_s, seconds = train_step_tokens_per_s(model, args.train_steps)
    result["train_step"] = {"batch": 32, "block": model.T_max, "threads": 2,
                            "seconds": seconds, "tokens_per_s": tokens_per_s}
    print(f"torch_peer: training step 32 x {model.T_max}: {seconds * 1000:.0f} ms, "
          f"{tokens_per_s:.0f} tokens/s (2 threads)")

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    if not (ok and greedy_same and same_text):
        print("torch_peer: the PyTorch model does NOT match the C++ one (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
