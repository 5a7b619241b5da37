#!/usr/bin/env python3
"""Writes the transformer zoo (data/networks/*.json; docs/transformers.md §6).

Each network is a stack of encoder or decoder blocks in kapla's transformer kinds: tokens are
positions of a 1 x s fmap, heads are samples (the `heads` key), a KV cache is a network
external. Embeddings, position encodings and the LM head / classifier are not included (the
issue makes them optional); ViT's patch embedding is (a 16x16 stride-16 Conv).

    python3 scripts/dev/gen_transformer_zoo.py [OUT_DIR]   # default data/networks
"""
import json
import sys
from pathlib import Path


class Net:
    def __init__(self, name, source, nofm, sofm):
        self.doc = {"name": name, "source": source,
                    "input": {"nofm": nofm, "sofm": sofm}, "externals": [], "layers": []}

    def add(self, name, prevs, **layer):
        entry = {"name": name, **layer}
        entry["prevs"] = prevs
        self.doc["layers"].append(entry)
        return name

    def external(self, name, nofm, sofm):
        self.doc["externals"].append({"name": name, "nofm": nofm, "sofm": sofm})
        return name


def proj(net, name, src, nifm, nofm, sofm):
    return net.add(name, [src], type="Conv", nifm=nifm, nofm=nofm, sofm=sofm, sfil=1)


def norm(net, name, src, d, sofm):
    return net.add(name, [src], type="LayerNorm", nofm=d, sofm=sofm)


def attention(net, p, x, s, d, h, sofm, ctx=None, kv_heads=None):
    """Q, K, V projections, Q.K^T, softmax, P.V, output projection. With ctx (decode), the
    keys and values are the block's cache externals of ctx tokens; the new token's K and V
    projections are still computed (they are appended to the cache in DRAM). With kv_heads
    (grouped-query attention, docs/transformers.md §2), the g = h / kv_heads query heads that
    share a key/value head are stacked into its positions: m = s * g, heads = kv_heads."""
    dh = d // h
    kvh = kv_heads or h
    g = h // kvh
    q = proj(net, p + "q", x, d, d, sofm)
    k = proj(net, p + "k", x, d, kvh * dh, sofm)
    v = proj(net, p + "v", x, d, kvh * dh, sofm)
    n = s
    if ctx is not None:
        k = net.external(p + "k_cache", kvh * dh, [1, ctx])
        v = net.external(p + "v_cache", kvh * dh, [1, ctx])
        n = ctx
    qk = net.add(p + "qk", [q, k], type="MatMul", m=s * g, k=dh, n=n, heads=kvh)
    sm = net.add(p + "softmax", [qk], type="Softmax", nofm=n, sofm=[1, s * g], heads=kvh)
    av = net.add(p + "av", [sm, v], type="MatMul", m=s * g, k=n, n=dh, heads=kvh)
    return proj(net, p + "proj", av, d, d, sofm)


def residual(net, name, a, b, d, sofm):
    return net.add(name, [a, b], type="Eltwise", nofm=d, sofm=sofm, nreg=2)


def ffn_gelu(net, p, x, d, f, sofm):
    u = proj(net, p + "ff1", x, d, f, sofm)
    g = net.add(p + "gelu", [u], type="GELU", nofm=f, sofm=sofm)
    return proj(net, p + "ff2", g, f, d, sofm)


def post_norm_block(net, p, x, s, d, h, f, sofm):
    """BERT: x -> attention -> +x -> LN -> FFN -> + -> LN."""
    a = attention(net, p, x, s, d, h, sofm)
    r1 = residual(net, p + "res1", a, x, d, sofm)
    n1 = norm(net, p + "ln1", r1, d, sofm)
    ff = ffn_gelu(net, p, n1, d, f, sofm)
    r2 = residual(net, p + "res2", ff, n1, d, sofm)
    return norm(net, p + "ln2", r2, d, sofm)


def pre_norm_block(net, p, x, s, d, h, f, sofm, ctx=None):
    """GPT-2 / ViT: x -> LN -> attention -> +x -> LN -> FFN -> +."""
    n1 = norm(net, p + "ln1", x, d, sofm)
    a = attention(net, p, n1, s, d, h, sofm, ctx)
    r1 = residual(net, p + "res1", a, x, d, sofm)
    n2 = norm(net, p + "ln2", r1, d, sofm)
    ff = ffn_gelu(net, p, n2, d, f, sofm)
    return residual(net, p + "res2", ff, r1, d, sofm)


def bert(s):
    d, h, f, layers = 768, 12, 3072, 12
    net = Net(f"bert_base_s{s}",
              f"BERT-base encoder, sequence {s}: Devlin et al., NAACL 2019 (12 post-norm blocks; "
              "no embeddings, pooler or classifier)", d, [1, s])
    x = "__INPUT__"
    for i in range(layers):
        x = post_norm_block(net, f"b{i}_", None if i == 0 else x, s, d, h, f, [1, s])
    return net


def gpt2(s, ctx=None):
    d, h, f, layers = 768, 12, 3072, 12
    what = f"prefill of {s} tokens" if ctx is None else f"decode of {s} token with a {ctx}-token KV cache"
    net = Net(f"gpt2_small_prefill{s}" if ctx is None else f"gpt2_small_decode{ctx}",
              f"GPT-2 small, {what}: Radford et al., 2019 (12 pre-norm blocks and the final "
              "layer norm; no embeddings, no LM head)", d, [1, s])
    x = None
    for i in range(layers):
        x = pre_norm_block(net, f"b{i}_", x, s, d, h, f, [1, s], ctx)
    norm(net, "ln_f", x, d, [1, s])
    return net


def vit_b16():
    d, h, f, layers, s = 768, 12, 3072, 12, 196
    net = Net("vit_b16",
              "ViT-B/16 at 224x224: Dosovitskiy et al., ICLR 2021 (patch embedding as a 16x16 "
              "stride-16 Conv, 12 pre-norm blocks over the 196 patch tokens, final layer norm; "
              "no class token, position embedding or head)", 3, [224, 224])
    x = net.add("patch_embed", None, type="Conv", nifm=3, nofm=d, sofm=[14, 14], sfil=16, strd=16)
    for i in range(layers):
        x = pre_norm_block(net, f"b{i}_", x, s, d, h, f, [14, 14])
    norm(net, "ln_f", x, d, [14, 14])
    return net


def llama2_block(size, s, ctx=None):
    """One LLaMA-2 decoder block: RMSNorm priced as LayerNorm, SwiGLU FFN (SiLU priced as
    the GELU kind, the gate product as an Eltwise), rotary embeddings not priced. 7B: 32 heads
    of their own; 70B: 64 query heads sharing 8 key/value heads (grouped-query attention)."""
    d, h, kvh, f = {"7b": (4096, 32, 32, 11008), "70b": (8192, 64, 8, 28672)}[size]
    what = f"prefill of {s} tokens" if ctx is None else f"decode of {s} token with a {ctx}-token KV cache"
    heads = f"{h} heads, no grouped-query attention" if kvh == h else \
        f"{h} query heads in {kvh} grouped-query key/value heads"
    stage = f"prefill{s}" if ctx is None else f"decode{ctx}"
    net = Net(f"llama2_{size}_block_{stage}",
              f"LLaMA-2-{size.upper()}, one decoder block, {what}: Touvron et al., 2023 "
              f"({heads}; RMSNorm as LayerNorm, SiLU as GELU, no rotary embedding)", d, [1, s])
    sofm = [1, s]
    n1 = norm(net, "rms1", None, d, sofm)
    a = attention(net, "", n1, s, d, h, sofm, ctx, kvh)
    r1 = residual(net, "res1", a, "__INPUT__", d, sofm)
    n2 = norm(net, "rms2", r1, d, sofm)
    # At prefill 2048 a whole d x f matrix is 9.2e10 MACs per sample, above the 2^36 limit of
    # model/limits.hpp: each FFN matrix is then two layers of half its output channels, whose
    # outputs the consumers concatenate (the same MACs and words).
    parts = 2 if s * d * f > 2**36 else 1

    def split(name, src, nifm, nofm):
        if parts == 1:
            return [proj(net, name, src, nifm, nofm, sofm)]
        return [proj(net, f"{name}_{i}", src, nifm, nofm // parts, sofm) for i in range(parts)]

    gate = split("gate", n2, d, f)
    up = split("up", n2, d, f)
    act = net.add("silu", gate, type="GELU", nofm=f, sofm=sofm)
    prod = net.add("gate_up", [act] + up, type="Eltwise", nofm=f, sofm=sofm, nreg=2)
    down = [proj(net, "down", prod, f, d, sofm)] if parts == 1 else \
        [proj(net, f"down_{i}", prod, f, d // parts, sofm) for i in range(parts)]
    net.add("res2", down + [r1], type="Eltwise", nofm=d, sofm=sofm, nreg=2)
    return net


def fix_prevs(doc):
    # None (the network input) as JSON null; "__INPUT__" as null inside a list.
    for layer in doc["layers"]:
        p = layer["prevs"]
        if p is None or p == [None]:
            layer["prevs"] = None
        else:
            layer["prevs"] = [None if x in (None, "__INPUT__") else x for x in p]
    return doc


def write(net, out_dir):
    doc = fix_prevs(net.doc)
    lines = ["{"]
    lines.append(f'  "name": {json.dumps(doc["name"])},')
    lines.append(f'  "source": {json.dumps(doc["source"])},')
    lines.append(f'  "input": {json.dumps(doc["input"])},')
    ext = ",\n    ".join(json.dumps(e) for e in doc["externals"])
    lines.append(f'  "externals": [{"" if not ext else chr(10) + "    " + ext + chr(10) + "  "}],')
    layers = ",\n    ".join(json.dumps(l) for l in doc["layers"])
    lines.append(f'  "layers": [\n    {layers}\n  ]')
    lines.append("}")
    (out_dir / f'{doc["name"]}.json').write_text("\n".join(lines) + "\n")


def main():
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "data/networks")
    for net in [bert(128), bert(512), gpt2(1024), gpt2(1, ctx=1024), vit_b16(),
                llama2_block("7b", 2048), llama2_block("7b", 1, ctx=2048),
                llama2_block("70b", 1, ctx=4096)]:
        write(net, out_dir)


if __name__ == "__main__":
    main()
