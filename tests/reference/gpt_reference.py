#!/usr/bin/python3
"""An independent NumPy reference of the course's GPT forward pass, and the golden files.

Written from the model's description (not from the C++), in float64:

  x      = wte[token] + wpe[position]                        learned positions
  block  : x += proj(attention(ln_1(x)))                      pre-LayerNorm
           x += mlp.proj(gelu(mlp.fc(ln_2(x))))               GELU exact: x * Phi(x)
  logits = ln_f(x) @ wte^T                                    tied output embedding
  LayerNorm: (x - mean) / sqrt(var + 1e-5) * w + b, var the biased (population) variance
  Linear:    y = x @ W^T + b with W stored (out, in) as in torch.nn.Linear
  qkv rows:  q | k | v; head h is columns h*HS .. (h+1)*HS-1 of each, HS = C / NH
  attention: softmax(q k^T / sqrt(HS)) with a causal mask, then @ v; heads side by side

It writes, with its own minimal safetensors writer:

  tests/golden/tiny_model.safetensors   a small random model in the checkpoint format
                                        (docs/checkpoint-format.md, common/checkpoint.hpp)
  tests/golden/tiny_golden.safetensors  for the model's token sequence:
      "tokens"    I32 (T)        the input ids
      "logits"    F32 (T, V)     logits of every position (computed in float64)
      "residual"  F32 (T, C)     the residual stream after the last block (before ln_f)
      "losses"    F32 (T-1)      -log p(tokens[t+1] | tokens[0..t]) for t = 0 .. T-2
      "loss"      F32 (1)        their mean: the next-token cross-entropy of the sequence
    metadata "loss" holds the same mean in full double precision (repr), and
    "loss_inputs" / "loss_targets" say which tokens it pairs.

The C++ tests read only the committed files: Python is not needed to build or test.
Regenerate (Debian's python3-numpy; note /usr/bin/python3, not a pyenv one):

  /usr/bin/python3 tests/reference/gpt_reference.py          # from the repository root

The output is deterministic for a given NumPy (seeded PCG64 generator); the script checks
its own files by reading them back.
"""

import json
import math
import os
import struct
import sys

import numpy as np

SEED = 20240607
VOCAB = ["\n", "春", "风", "花", "月", "夜", "山", "水", "人", "，", "。"]
N_LAYER, N_HEAD, N_EMBD, BLOCK_SIZE = 2, 2, 8, 16
SEQUENCE_LENGTH = 12
EPS = 1e-5

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(os.path.dirname(HERE), "golden")


# --- parameters, named as in the checkpoint format --------------------------
def parameter_names_and_shapes(V, T, L, C):
    """Names and shapes in checkpoint order (common/parameters.cpp parameter_layout)."""
    specs = [("wte.weight", (V, C)), ("wpe.weight", (T, C))]
    for layer in range(L):
        p = f"h.{layer}."
        specs += [
            (p + "ln_1.weight", (C,)),
            (p + "ln_1.bias", (C,)),
            (p + "attn.qkv.weight", (3 * C, C)),
            (p + "attn.qkv.bias", (3 * C,)),
            (p + "attn.proj.weight", (C, C)),
            (p + "attn.proj.bias", (C,)),
            (p + "ln_2.weight", (C,)),
            (p + "ln_2.bias", (C,)),
            (p + "mlp.fc.weight", (4 * C, C)),
            (p + "mlp.fc.bias", (4 * C,)),
            (p + "mlp.proj.weight", (C, 4 * C)),
            (p + "mlp.proj.bias", (C,)),
        ]
    specs += [("ln_f.weight", (C,)), ("ln_f.bias", (C,))]
    return specs


def random_parameters(rng):
    """Weights N(0, 0.3) so the logits are far from zero; LayerNorm weights near 1."""
    params = {}
    for name, shape in parameter_names_and_shapes(len(VOCAB), BLOCK_SIZE, N_LAYER, N_EMBD):
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            values = 1.0 + 0.2 * rng.standard_normal(shape)
        elif name.endswith("ln_1.bias") or name.endswith("ln_2.bias") or name.endswith("ln_f.bias"):
            values = 0.1 * rng.standard_normal(shape)
        elif name.endswith(".bias"):
            values = 0.1 * rng.standard_normal(shape)
        else:
            values = 0.3 * rng.standard_normal(shape)
        # The checkpoint stores float32: compute with exactly the stored values.
        params[name] = values.astype(np.float32)
    return params


# --- the forward pass, float64 ----------------------------------------------
def layer_norm(x, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


def linear(x, w, b):
    return x @ w.T + b


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def causal_self_attention(x, w_qkv, b_qkv, n_head):
    T, C = x.shape
    hs = C // n_head
    qkv = linear(x, w_qkv, b_qkv)
    q, k, v = qkv[:, :C], qkv[:, C : 2 * C], qkv[:, 2 * C :]
    out = np.zeros((T, C))
    future = np.triu(np.ones((T, T), dtype=bool), k=1)  # position t must not see t' > t
    for h in range(n_head):
        cols = slice(h * hs, (h + 1) * hs)
        scores = q[:, cols] @ k[:, cols].T / math.sqrt(hs)
        scores[future] = -np.inf
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        out[:, cols] = weights @ v[:, cols]
    return out


def forward(params, tokens):
    """Returns (logits (T, V), residual stream after the last block (T, C))."""
    p = {name: value.astype(np.float64) for name, value in params.items()}
    T = len(tokens)
    x = p["wte.weight"][tokens] + p["wpe.weight"][np.arange(T)]
    for layer in range(N_LAYER):
        h = f"h.{layer}."
        a = causal_self_attention(
            layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"]),
            p[h + "attn.qkv.weight"], p[h + "attn.qkv.bias"], N_HEAD)
        x = x + linear(a, p[h + "attn.proj.weight"], p[h + "attn.proj.bias"])
        m = layer_norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"])
        m = gelu(linear(m, p[h + "mlp.fc.weight"], p[h + "mlp.fc.bias"]))
        x = x + linear(m, p[h + "mlp.proj.weight"], p[h + "mlp.proj.bias"])
    logits = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T
    return logits, x


def next_token_losses(logits, tokens):
    """-log softmax(logits[t])[tokens[t+1]] for t = 0 .. T-2."""
    z = logits[:-1] - logits[:-1].max(axis=-1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -log_probs[np.arange(len(tokens) - 1), tokens[1:]]


# --- a minimal safetensors writer and reader ---------------------------------
DTYPES = {np.dtype("<f4"): "F32", np.dtype("<i4"): "I32"}


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, numpy array); data in list order, header padded to 8 bytes."""
    header = {"__metadata__": metadata}
    chunks, offset = [], 0
    for name, array in tensors:
        array = np.ascontiguousarray(array)
        data = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in chunks:
            f.write(data)
    os.replace(temporary, path)


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    by_dtype = {v: k for k, v in DTYPES.items()}
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(raw[8 + n + begin : 8 + n + end],
                                      dtype=by_dtype[entry["dtype"]]).reshape(entry["shape"])
    return metadata, tensors


# --- main ---------------------------------------------------------------------
def main():
    rng = np.random.default_rng(SEED)
    params = random_parameters(rng)
    tokens = rng.integers(0, len(VOCAB), size=SEQUENCE_LENGTH).astype(np.int32)

    logits, residual = forward(params, tokens)
    losses = next_token_losses(logits, tokens)
    loss = float(losses.mean())

    # Self-checks of the reference itself.
    prefix_logits, _ = forward(params, tokens[:7])
    assert np.abs(prefix_logits - logits[:7]).max() < 1e-12, "the causal mask leaks the future"
    assert np.abs(logits).max() > 1.0, "logits too small to be a useful test"

    os.makedirs(GOLDEN_DIR, exist_ok=True)
    model_path = os.path.join(GOLDEN_DIR, "tiny_model.safetensors")
    golden_path = os.path.join(GOLDEN_DIR, "tiny_golden.safetensors")

    names = [name for name, _ in parameter_names_and_shapes(len(VOCAB), BLOCK_SIZE, N_LAYER, N_EMBD)]
    write_safetensors(model_path, [(name, params[name]) for name in names], {
        "format": "tang-gpt-1",
        "n_layer": str(N_LAYER),
        "n_head": str(N_HEAD),
        "n_embd": str(N_EMBD),
        "block_size": str(BLOCK_SIZE),
        "vocab_size": str(len(VOCAB)),
        "vocab": json.dumps(VOCAB, ensure_ascii=False, separators=(",", ":")),
        "note": "random weights from tests/reference/gpt_reference.py (seed %d)" % SEED,
    })
    write_safetensors(golden_path, [
        ("tokens", tokens),
        ("logits", logits.astype(np.float32)),
        ("residual", residual.astype(np.float32)),
        ("losses", losses.astype(np.float32)),
        ("loss", np.array([loss], dtype=np.float32)),
    ], {
        "format": "tang-gpt-golden-1",
        "model": "tiny_model.safetensors",
        "loss": repr(loss),
        "loss_inputs": "tokens[0 .. T-2]",
        "loss_targets": "tokens[1 .. T-1]",
        "generator": "tests/reference/gpt_reference.py, NumPy %s, float64" % np.__version__,
    })

    # Read both back and check them against what was meant.
    metadata, tensors = read_safetensors(model_path)
    assert json.loads(metadata["vocab"]) == VOCAB
    for name in names:
        assert np.array_equal(tensors[name], params[name]), name
    metadata, tensors = read_safetensors(golden_path)
    assert np.array_equal(tensors["tokens"], tokens)
    assert np.array_equal(tensors["logits"], logits.astype(np.float32))

    print("tokens:", " ".join(str(t) for t in tokens), "=", repr("".join(VOCAB[t] for t in tokens)))
    print("max |logit| = %.4f, next-token loss = %.10f" % (np.abs(logits).max(), loss))
    print("wrote", model_path)
    print("wrote", golden_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
