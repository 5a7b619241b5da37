#!/usr/bin/env python3
"""Writes the transformer zoo (data/networks/*.json; docs/transformers.md §6).

Each network is a stack of encoder or decoder blocks in kapla's transformer kinds: tokens are
positions of a 1 x s fmap, or of an h x w one in the `_2d` variants (`tokens`: as square as s
allows; a MatMul reads them as 1 x s either way; ViT's 14 x 14 patches are 2-D by nature),
heads are samples (the `heads` key), a KV cache is a network external. Embeddings, position
encodings and the LM head / classifier are not included (the issue makes them optional);
ViT's patch embedding is, as the ViT paper writes it: a linear projection of the flattened
16x16x3 patches (a 1x1 Conv over 768 im2col channels, the MACs and words of the 16x16
stride-16 Conv that torchvision exports).

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


def tokens(s):
    """The 2-D fmap of s tokens: h x w with h the largest divisor of s not above sqrt(s). A
    1 x s row is cheaper for 1x1 projections on cloud, but a local-region layer (layer norm,
    softmax, residual add) over 1 x 512 tokens needs 512-word rows in every PE replica and
    does not fit the edge preset's GBUF (docs/transformers.md §6)."""
    h = max(d for d in range(1, int(s**0.5) + 1) if s % d == 0)
    return [h, s // h]


def row(s):
    return [1, s]


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
    # Without a cache, V's projection is listed first, the order the scheduler takes anyway
    # (schedule/sched_dag.cpp lists the producer of a MatMul's B early where its A may stay on
    # chip, so that the softmax sits right before attention.V, docs/transformers.md §5.4): the
    # file then reads in scheduling order. With a cache, K's and V's projections feed no layer
    # and go to the end of the order anyway.
    if ctx is None:
        v = proj(net, p + "v", x, d, kvh * dh, sofm)
    q = proj(net, p + "q", x, d, d, sofm)
    k = proj(net, p + "k", x, d, kvh * dh, sofm)
    if ctx is not None:
        v = proj(net, p + "v", x, d, kvh * dh, sofm)
    n = s
    if ctx is not None:
        k = net.external(p + "k_cache", kvh * dh, [1, ctx])
        v = net.external(p + "v_cache", kvh * dh, [1, ctx])
        n = ctx
    qk = net.add(p + "qk", [q, k], type="MatMul", m=s * g, k=dh, n=n, heads=kvh)
    sm = net.add(p + "softmax", [qk], type="Softmax", nofm=n, sofm=row(s * g) if sofm[0] == 1 else tokens(s * g), heads=kvh)
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


def bert(s, tok=row):
    d, h, f, layers = 768, 12, 3072, 12
    net = Net(f"bert_base_s{s}{suffix(tok)}",
              f"BERT-base encoder, sequence {s}: Devlin et al., NAACL 2019 (12 post-norm blocks; "
              "no embeddings, pooler or classifier" + layout_note(tok, s) + ")", d, tok(s))
    x = "__INPUT__"
    for i in range(layers):
        x = post_norm_block(net, f"b{i}_", None if i == 0 else x, s, d, h, f, tok(s))
    return net


def gpt2(s, ctx=None, tok=row):
    d, h, f, layers = 768, 12, 3072, 12
    what = f"prefill of {s} tokens" if ctx is None else f"decode of {s} token with a {ctx}-token KV cache"
    net = Net((f"gpt2_small_prefill{s}" if ctx is None else f"gpt2_small_decode{ctx}") + suffix(tok),
              f"GPT-2 small, {what}: Radford et al., 2019 (12 pre-norm blocks and the final "
              "layer norm; no embeddings, no LM head" + layout_note(tok, s) + ")", d, tok(s))
    x = None
    for i in range(layers):
        x = pre_norm_block(net, f"b{i}_", x, s, d, h, f, tok(s), ctx)
    norm(net, "ln_f", x, d, tok(s))
    return net


def vit_b16():
    d, h, f, layers, s = 768, 12, 3072, 12, 196
    net = Net("vit_b16",
              "ViT-B/16 at 224x224: Dosovitskiy et al., ICLR 2021 (patch embedding as the paper's "
              "linear projection of the 196 flattened 16x16x3 patches, a 1x1 Conv over 768 "
              "im2col channels; 12 pre-norm blocks over the 196 patch tokens, final layer norm; "
              "no class token, position embedding or head)", 3 * 16 * 16, tokens(s))
    x = net.add("patch_embed", None, type="Conv", nifm=3 * 16 * 16, nofm=d, sofm=tokens(s), sfil=1)
    for i in range(layers):
        x = pre_norm_block(net, f"b{i}_", x, s, d, h, f, tokens(s))
    norm(net, "ln_f", x, d, tokens(s))
    return net


def llama2_block(size, s, ctx=None, tok=row):
    """One LLaMA-2 decoder block: RMSNorm priced as LayerNorm, SwiGLU FFN (SiLU priced as
    the GELU kind, the gate product as an Eltwise), rotary embeddings not priced. 7B: 32 heads
    of their own; 70B: 64 query heads sharing 8 key/value heads (grouped-query attention)."""
    d, h, kvh, f = {"7b": (4096, 32, 32, 11008), "70b": (8192, 64, 8, 28672)}[size]
    what = f"prefill of {s} tokens" if ctx is None else f"decode of {s} token with a {ctx}-token KV cache"
    heads = f"{h} heads, no grouped-query attention" if kvh == h else \
        f"{h} query heads in {kvh} grouped-query key/value heads"
    stage = f"prefill{s}" if ctx is None else f"decode{ctx}"
    net = Net(f"llama2_{size}_block_{stage}{suffix(tok)}",
              f"LLaMA-2-{size.upper()}, one decoder block, {what}: Touvron et al., 2023 "
              f"({heads}; RMSNorm as LayerNorm, SiLU as GELU, no rotary embedding" + layout_note(tok, s) + ")", d, tok(s))
    sofm = tok(s)
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


def suffix(tok):
    return "_2d" if tok is tokens else ""


def layout_note(tok, s):
    h, w = tok(s)
    return "" if tok is row else f"; tokens laid out as a {h} x {w} fmap"


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
                bert(512, tokens), gpt2(1024, tok=tokens), llama2_block("7b", 2048, tok=tokens),
                llama2_block("7b", 2048), llama2_block("7b", 1, ctx=2048),
                llama2_block("70b", 1, ctx=4096)]:
        write(net, out_dir)


if __name__ == "__main__":
    main()
