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
3. Times, on ONE thread (torch.set_num_threads(1), and OpenBLAS's own thread pool set
   to one through ctypes, since this torch does not pass its count on to OpenBLAS),
   writing 32 / 64 / 120 characters after a newline at T 0.8 with top-k 20, without a
   cache (the whole context again each step) and with its own KV cache (preallocated,
   one position per step): the same work as lesson06/write_chars in bench_06_kvcache.
   Median of --repeats runs.
4. Times, on ONE thread, many poems at once as bench_08_many_poems does (lesson 08's
   write_batched): 32 poems (seeds 1 .. 32, after a newline, at most 64 characters each,
   T 0.8, top-k 20) with B = 1, 2, 4, 8, 16, 32 in flight, one forward per step for the
   whole batch over a preallocated (L, B, ...) KV cache, each poem at its own position and
   with its own coins; a poem that writes its newline leaves and the next seed takes its
   place. Also 8 poems at B = 1 (seeds 1 .. 8), as lesson08/decode. chars/s and us per
   character, median of --repeats runs (--smoke: 8 poems, B = 1 and 4; --batches picks
   the B values). It checks the batched logits too: each poem's last step at the largest
   B against a whole forward of that poem (a mismatch: exit status 1, as in 2).
5. Times, on ONE thread, one batched step on a model of GPT-2 small's shape (12 layers,
   12 heads, 768 dims, our vocabulary, context 128) with random weights, as
   lesson08/big/FORMAT/B:N: B texts whose caches hold 64 positions, one forward of B new
   positions and one draw per text (T 0.8, top-k 20), median of --repeats x 5 steps, at
   the same B values; in fp32, and in int8 where torch.ao's dynamic quantization runs
   (every nn.Linear as int8 weights, each input row quantized on the fly; the tied output
   layer stays fp32, as it is not an nn.Linear). --no-big-model leaves it out.
6. Times one training step on TWO threads: batch 32 x 128 random ids, forward,
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


# --- many poems at once, as lesson 08's write_batched (bench_08_many_poems) ---------------
# What bench_08 times, and how this matches it:
# - the poems: one per seed, after a newline (id 0, position 0), at most max_chars new
#   characters each; the newline that ends a poem counts as one of its characters, as in
#   write_batched (out.characters counts every sampled id). T 0.8, top-k 20.
# - B poems in flight, one forward per step for all of them; each poem at its own position,
#   with its own cache and its own coins (here: max_chars uniforms drawn from
#   torch.Generator().manual_seed(seed) when it joins, one used per character). A poem that
#   ends leaves; the next seed takes its place, so the batch stays full while seeds wait,
#   then shrinks (write_batched's `still`). Here the freed slot is refilled in place, or,
#   with no seed left, the last poem's cache rows are moved into it, so that the active
#   poems are always slots 0 .. n-1 and the step works on a view of the cache, no gather.
# - the work per character: the same matrix products, B rows at a time (one gemm per weight
#   matrix, as lesson 08's batched step). The attention is batched over the longest poem in flight,
#   the shorter ones masked (lesson 08 attends each poem over its own length: here at
#   most (longest - own length) positions more, a few thousand multiply-adds against the 1.7
#   million of the weights). The sampling is the same per row (temperature, the top 20 of
#   the full vocabulary, softmax, one coin), done for the whole batch at once (torch.topk
#   keeps exactly 20; write_chars keeps ties with the 20th too, which almost never happen).
# - what differs: our Rng and torch's generator draw different coins, so these are not the
#   C++ poems; their lengths, and so the characters and steps, differ a little (chars/s and
#   us per character are per character either way). Allocating the cache (zeroed) is inside
#   the timing, as write_batched's caches and scratch are.
BATCH_SIZES = (1, 2, 4, 8, 16, 32)


@torch.inference_mode()
def write_batched(model, seeds, batch, max_chars=64, temperature=0.8, top_k=20, check=None):
    """{"poems": token ids per seed (the ending newline dropped), "steps", "characters"}.
    check: a list that gets (context ids, logits) of each poem's last step, for checking."""
    L, NH, C = model.L, model.NH, model.C
    HS = C // NH
    slots = max(1, min(batch, len(seeds)))
    # (L, B, NH, positions, HS); zeroed: masked positions must hold finite numbers
    k_cache = torch.zeros(L, slots, NH, max_chars, HS)
    v_cache = torch.zeros(L, slots, NH, max_chars, HS)
    waiting = list(range(len(seeds)))[::-1]  # pop() takes seeds in order
    index, pos, tok, coins, written = [], [], [], [], []  # per slot 0 .. n-1
    poems = [None] * len(seeds)
    steps = characters = 0
    scale = 1.0 / math.sqrt(HS)

    def join(slot):
        i = waiting.pop()
        g = torch.Generator().manual_seed(int(seeds[i]))
        state = (i, 0, 0, torch.rand(max_chars, generator=g).tolist(), [])
        if slot == len(index):
            for column, value in zip((index, pos, tok, coins, written), state):
                column.append(value)
        else:
            index[slot], pos[slot], tok[slot], coins[slot], written[slot] = state

    while waiting and len(index) < slots:
        join(len(index))
    while index:
        n = len(index)
        rows = torch.arange(n)
        p = torch.tensor(pos)                                        # (n) each poem's position
        x = model.wte(torch.tensor(tok)) + model.wpe(p)               # (n, C)
        span = max(pos) + 1                                           # the longest poem's positions
        hidden = (torch.arange(span) > p[:, None])[:, None, None, :]  # (n, 1, 1, span) not its own
        for l, block in enumerate(model.blocks):
            q, k, v = block.qkv(block.ln_1(x)).split(C, dim=1)        # (n, C) each, one gemm
            kc, vc = k_cache[l], v_cache[l]                           # (B, NH, T, HS)
            kc[rows, :, p] = k.view(n, NH, HS)                        # each at its own position
            vc[rows, :, p] = v.view(n, NH, HS)
            scores = (q.view(n, NH, 1, HS) @ kc[:n, :, :span].transpose(-2, -1)) * scale
            scores = scores.masked_fill(hidden, float("-inf"))       # (n, NH, 1, span)
            y = (F.softmax(scores, dim=-1) @ vc[:n, :, :span]).reshape(n, C)
            x = x + block.proj(y)
            x = x + block.fc_proj(F.gelu(block.fc(block.ln_2(x))))
        logits = model.ln_f(x) @ model.wte.weight.t()                # (n, V)
        steps += 1
        # per row: T, the top k of the vocabulary, softmax, the poem's next coin
        top, ids = torch.topk(logits / temperature, top_k, dim=-1)   # (n, k)
        cdf = F.softmax(top, dim=-1).cumsum(dim=-1)
        u = torch.tensor([coins[b][pos[b]] for b in range(n)])
        choice = (cdf < u[:, None]).sum(dim=-1).clamp_(max=top_k - 1)
        chosen = ids[rows, choice].tolist()
        ended = []
        for b in range(n):
            written[b].append(chosen[b])
            characters += 1
            if chosen[b] == 0 or len(written[b]) == max_chars:  # id 0: the newline
                ended.append(b)
                if check is not None:
                    check.append(([0] + written[b][:-1], logits[b].clone()))
            tok[b] = chosen[b]
            pos[b] += 1
        for b in ended:
            poems[index[b]] = written[b][:-1] if written[b][-1] == 0 else written[b]
        leaving = []
        for b in ended:  # the next seed takes the place, while there is one
            if waiting:
                join(b)
            else:
                leaving.append(b)
        for b in reversed(leaving):  # the batch shrinks: the last poem moves into the gap
            last = len(index) - 1
            if b != last:
                held = pos[last]
                k_cache[:, b, :, :held] = k_cache[:, last, :, :held]
                v_cache[:, b, :, :held] = v_cache[:, last, :, :held]
                for column in (index, pos, tok, coins, written):
                    column[b] = column[last]
            for column in (index, pos, tok, coins, written):
                column.pop()
    return {"poems": poems, "steps": steps, "characters": characters}


def time_batched(model, seeds, batch, repeats, max_chars=64):
    """write_batched once (a warm-up, and it counts the characters), then median of repeats."""
    first = write_batched(model, seeds, batch, max_chars)
    ms = median_ms(repeats, lambda: write_batched(model, seeds, batch, max_chars))
    chars = first["characters"]
    return first, {"ms": ms, "characters": chars, "steps": first["steps"],
                   "chars_per_s": chars / ms * 1000, "us_per_char": ms * 1000 / chars}


# --- one batched step on a model too big for the cache, as lesson08/big ----------------
BIG_CACHED = 64  # positions each text's cache holds, as bench_08_many_poems


def big_model(V):
    torch.manual_seed(1)
    model = GPT(V, 128, 12, 12, 768)
    with torch.no_grad():
        for p in model.parameters():  # random weights: the time does not depend on them
            p.normal_(0.0, 0.02)
    return model.eval()


def big_step_ms(model, B, repeats, steps=5):
    """Median ms of one batched step: B texts at position BIG_CACHED (their caches filled
    with zeros: the values do not change the time), a forward of one new position each,
    and one draw per text at T 0.8, top-k 20."""
    HS = model.C // model.NH
    cache = [(torch.zeros(B, model.NH, model.T_max, HS), torch.zeros(B, model.NH, model.T_max, HS))
             for _ in range(model.L)]
    idx = torch.ones(B, 1, dtype=torch.long)
    generator = torch.Generator().manual_seed(1)

    def step():
        logits = model(idx, cache, BIG_CACHED)[:, -1] / 0.8  # (B, V)
        kth = torch.topk(logits, 20, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator)

    with torch.inference_mode():
        step()  # warm-up
        return median_ms(repeats * steps, step)


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


def openblas_library():
    """The OpenBLAS that torch loaded in this process (ctypes), or None."""
    import ctypes
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = sorted({line.split()[-1] for line in f if "libopenblas" in line})
        return ctypes.CDLL(paths[0])
    except (OSError, IndexError):
        return None


def openblas_core():
    """The kernels OpenBLAS actually chose in this process (e.g. 'Prescott', 'SkylakeX')."""
    import ctypes
    try:
        corename = openblas_library().openblas_get_corename
        corename.restype = ctypes.c_char_p
        return corename().decode()
    except AttributeError:
        return "unknown"


def set_threads(n):
    """torch.set_num_threads(n), and the same for OpenBLAS: this torch (BLAS_INFO=generic)
    leaves OpenBLAS's own thread pool alone, so without this a "one thread" matrix product
    still runs on every core (as the C++ would without OPENBLAS_NUM_THREADS=1).
    OpenBLAS's thread count afterwards, or None when it cannot be asked."""
    torch.set_num_threads(n)
    try:
        blas = openblas_library()
        blas.openblas_set_num_threads(n)
        return int(blas.openblas_get_num_threads())
    except AttributeError:
        return None


# --- main -----------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", required=True, help="bench_dump_logits output")
    parser.add_argument("--out", required=True, help="JSON results")
    parser.add_argument("--repeats", type=int, default=3, help="runs per generation timing")
    parser.add_argument("--train-steps", type=int, default=3, help="timed training steps")
    parser.add_argument("--lengths", default="32,64,120")
    parser.add_argument("--batches", default="",
                        help="B values of the batched timing, e.g. 1,16 (default 1,2,4,8,16,32; "
                             "--smoke: 1,4)")
    parser.add_argument("--no-big-model", action="store_true",
                        help="leave out the large model's batched step")
    parser.add_argument("--smoke", action="store_true",
                        help="1 run each, 32 characters only, 8 poems at B = 1 and 4")
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
    result["openblas_threads_decoding"] = set_threads(1)
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

    # 3. many poems at once, one thread (bench_08_many_poems)
    poems, max_chars = (8, 64) if args.smoke else (32, 64)
    sizes = [int(b) for b in args.batches.split(",")] if args.batches else (
        [1, 4] if args.smoke else list(BATCH_SIZES))
    seeds = list(range(1, poems + 1))
    check = []  # each poem's last step at the largest B, against a whole forward of it
    write_batched(model, seeds, max(sizes), max_chars, check=check)
    batch_worst, batch_ok = 0.0, True
    with torch.inference_mode():
        for context, theirs in check:
            whole = model(torch.tensor([context]))[0, -1]
            diff = float((theirs - whole).abs().max())
            batch_worst = max(batch_worst, diff)
            batch_ok &= diff <= 1e-3 * max(1.0, float(whole.abs().max()))
    batched = {"poems": poems, "seeds": f"1 .. {poems}", "max_chars": max_chars, "opening": "",
               "temperature": 0.8, "top_k": 20, "threads": 1, "repeats": args.repeats,
               "logits_max_abs_diff": batch_worst, "logits_match": bool(batch_ok), "by_batch": {}}
    texts = []
    for b in sizes:
        first, timing = time_batched(model, seeds, b, args.repeats, max_chars)
        texts.append(first["poems"])
        batched["by_batch"][str(b)] = timing
        one = batched["by_batch"].get("1")
        print(f"torch_peer: {poems} poems, B = {b:2d} in flight: {timing['steps']:4d} steps, "
              f"{timing['characters']} characters, {timing['ms']:8.1f} ms, "
              f"{timing['chars_per_s']:6.0f} chars/s ({timing['us_per_char']:.1f} us per character)"
              + (f", {timing['chars_per_s'] / one['chars_per_s']:.2f}x B = 1" if one else ""))
    # batching should not change the text; rounding of gemm against gemv may, rarely
    batched["same_poems_every_batch"] = all(t == texts[0] for t in texts)
    _, decode = time_batched(model, list(range(1, 9)), 1, args.repeats, max_chars)
    batched["decode"] = dict(decode, poems=8, seeds="1 .. 8", batch=1)
    print(f"torch_peer: 8 poems at B = 1 (lesson08/decode): {decode['chars_per_s']:.0f} chars/s "
          f"({decode['us_per_char']:.1f} us per character); batched logits vs whole forward "
          f"max |diff| {batch_worst:.2e} ({'match' if batch_ok else 'MISMATCH'}), same poems at "
          f"every B: {'yes' if batched['same_poems_every_batch'] else 'no'}")
    result["batched"] = batched

    # 4. one batched step on the large model, one thread
    if not args.no_big_model:
        fp32 = big_model(model.V)
        try:
            int8 = torch.ao.quantization.quantize_dynamic(fp32, {torch.nn.Linear}, dtype=torch.qint8)
            int8_note = "torch.ao.quantization.quantize_dynamic: nn.Linear weights int8"
        except Exception as error:  # an engine this torch lacks on this CPU
            int8, int8_note = None, f"int8 did not run: {error}"
        big = {"shape": "12 layers, 12 heads, 768 dims, context 128", "cached": BIG_CACHED,
               "threads": 1, "int8": int8_note, "by_batch": {}}
        for b in sizes:
            row = {"fp32_ms": big_step_ms(fp32, b, args.repeats)}
            if int8 is not None:
                try:
                    row["int8_ms"] = big_step_ms(int8, b, args.repeats)
                except Exception as error:
                    int8, big["int8"] = None, f"int8 did not run: {error}"
            for fmt in ("fp32", "int8"):
                if f"{fmt}_ms" in row:
                    row[f"{fmt}_chars_per_s"] = 1000.0 * b / row[f"{fmt}_ms"]
            big["by_batch"][str(b)] = row
            print(f"torch_peer: large model, B = {b:2d}: fp32 {row['fp32_chars_per_s']:6.1f} chars/s"
                  + (f", int8 {row['int8_chars_per_s']:6.1f} chars/s" if "int8_ms" in row else ""))
        result["big"] = big

    # 5. training, two threads
    result["openblas_threads_training"] = set_threads(2)
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
    if not batch_ok:
        print("torch_peer: the batched writer's logits do NOT match the whole forward (see above)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
