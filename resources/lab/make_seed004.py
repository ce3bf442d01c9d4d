#!/usr/bin/python3
"""Regenerates resources/lab/seed004.safetensors, the layer lab's default weights and inputs
(PyTorch 1.13). Run from the repository root:  /usr/bin/python3 resources/lab/make_seed004.py

Seed 004 in its order: torch.manual_seed(42); x = torch.randn(3, 1, 4);
nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0). The encoder
layer's weights and `src` (= x) are exactly tests/fixtures/torch/seed004.* (asserted). The decoder
part continues the same random stream (tgt = torch.randn(5, 1, 4), then nn.TransformerDecoderLayer
of the same size): PyTorch's own initialisation, but not the seed's decoder cells, which ran with
a random state the notebook does not show. The script prints the outputs the lab's test checks.
"""
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import st_io  # noqa: E402

torch.manual_seed(42)
x = torch.randn(3, 1, 4)
enc = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0)
tgt = torch.randn(5, 1, 4)
dec = nn.TransformerDecoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0)

fix_w, _ = st_io.load(os.path.join(ROOT, "tests", "fixtures", "torch", "seed004.weights.safetensors"))
fix_in, _ = st_io.load(os.path.join(ROOT, "tests", "fixtures", "torch", "seed004.inputs.safetensors"))
tensors = {}
for k, v in enc.state_dict().items():
    tensors["encoder_layer." + k] = v.detach().clone()
    assert fix_w["encoder_layer." + k].tobytes() == v.numpy().tobytes(), k
for k, v in dec.state_dict().items():
    tensors["decoder_layer." + k] = v.detach().clone()
assert fix_in["src"].tobytes() == x.numpy().tobytes()
tensors["src"] = x
tensors["tgt"] = tgt

st_io.save(os.path.join(HERE, "seed004.safetensors"), tensors,
           {"stepformer.lab": "seed 004: manual_seed(42), x, encoder layer, tgt, decoder layer"})
with torch.no_grad():
    memory = enc(x)
    print("memory", memory)
    print("output", dec(tgt, memory))
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    print("output, causal tgt_mask", dec(tgt, memory, tgt_mask=causal))
