#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""torchvision architectures, exported by PyTorch, compiled and run on fsim.

For each architecture: the torchvision 0.14 model with random weights
(weights=None, 10 classes, batchnorm statistics and the classifier's scale
randomized too, so that batchnorm is not the identity and the logits are
spread enough for their order to mean something), exported with
torch.onnx.export at opset 13 and a small input; `vta compile` calibrates it
on random inputs and `vta run` runs it on fsim on other random inputs. The
expected values are PyTorch's own float outputs. One PASS or FAIL line per
architecture goes to the results file.

    torchvision_e2e.py --vta build/bin/vta --out build/torchvision \
        --results build/test-results.txt [--size 64] [ARCH...]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision

# architecture: input size
ARCHS = {
    "efficientnet_b0": 64,
    "regnet_y_400mf": 64,
    "mobilenet_v3_small": 64,
    "mobilenet_v3_large": 64,
    "mnasnet0_5": 64,
    "densenet121": 64,
    "shufflenet_v2_x0_5": 64,
    # attention: batched MatMul and Softmax on the host, the class token
    # (Expand, Gather), LayerNorm written out (ReduceMean, Sub, Pow, Sqrt,
    # Div), GELU (Erf); a ViT's image size is fixed at construction
    "vit_b_16": 32,
    # opset 17: LayerNormalization as one node; MatMul of [N, H, W, C] by a
    # constant: dense layers on VTA (at opset 13 the same, checked once: 6/6,
    # 22.6 dB)
    "convnext_tiny@17": 64,
    # one small network on the RTL (Verilator), the rest on fsim
    "shufflenet_v2_x0_5%rtl": 64,
    # segmenters (torchvision.models.segmentation): bilinear upsampling
    # (Resize linear), dilated convolutions, the output a class map
    "lraspp_mobilenet_v3_large": 64,
    "deeplabv3_mobilenet_v3_large": 64,
}
SEGMENTERS = ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large")
# constructor arguments beyond the defaults (a ViT's image size is fixed)
KWARGS = {"vit_b_16": {"image_size": 32}}
# A segmenter's class map must agree with float PyTorch: the logits within
# the same 20 dB, and the class of at least 90% of the pixels.
MIN_PIXELS = 0.90
N_CALIB = 8   # calibration inputs
N_EVAL = 6    # scored inputs (others than the calibration ones)
# The quantized network must agree with float PyTorch: the log-probabilities
# (centered) within 20 dB SQNR (noise power 1% of the signal's) over the
# inputs, and the top-1 class on at least 5 of 6. Measured at 64x64 (default
# configuration): 31-46 dB and 6 of 6 for every architecture here. This
# checks the whole path (export, import, quantization, VTA and the host ops
# in libvta); it is not a fine check of each op: a random network forgives a
# lot (a sigmoid of 0.8 x instead of x everywhere in EfficientNet still gives
# 28 dB), which is what tests/compiler/test_onnx.c's per-op models are for.
MIN_SQNR_DB = 20.0
MIN_TOP1 = 5


class SegOut(torch.nn.Module):
    """A segmenter's "out" map alone (torchvision returns a dict)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def build(name, size, out):
    """name is an architecture, architecture@opset (default opset 13), and
    either may end in %rtl (run on the RTL instead of fsim)."""
    arch, _, opset = name.split("%")[0].partition("@")
    torch.manual_seed(0)
    if arch in SEGMENTERS:
        model = SegOut(getattr(torchvision.models.segmentation, arch)(weights=None, weights_backbone=None,
                                                                       num_classes=5, aux_loss=None)).eval()
    else:
        model = getattr(torchvision.models, arch)(weights=None, num_classes=10, **KWARGS.get(arch, {})).eval()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                c = mod.num_features
                mod.running_mean.copy_(0.1 * torch.randn(c, generator=g))
                mod.running_var.copy_(0.5 + torch.rand(c, generator=g))
                mod.weight.copy_(0.5 + torch.rand(c, generator=g))
                mod.bias.copy_(0.1 * torch.randn(c, generator=g))
    rng = np.random.default_rng(2)
    calib = rng.standard_normal((N_CALIB, 3, size, size)).astype("<f4")
    evals = rng.standard_normal((N_EVAL, 3, size, size)).astype("<f4")
    with torch.no_grad():
        # the last linear layer (SqueezeNet: convolution) scaled so that the
        # logits have a spread of about 3 on the calibration inputs
        last = [mod for mod in model.modules() if isinstance(mod, (torch.nn.Linear, torch.nn.Conv2d))][-1]
        if not last.weight.abs().sum():  # ViT's head starts at zero
            last.weight.copy_(torch.randn(last.weight.shape, generator=g) / math.sqrt(last.weight[0].numel()))
        spread = model(torch.from_numpy(calib)).std().item()
        if spread > 0:
            last.weight.mul_(3.0 / spread)
            if last.bias is not None:
                last.bias.mul_(3.0 / spread)
        logits = model(torch.from_numpy(evals)).numpy()
    onnx_path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, torch.from_numpy(calib[:1]), onnx_path, opset_version=int(opset or 13))
    calib.tofile(os.path.join(out, name + ".calib.f32"))
    inputs = []
    for i in range(N_EVAL):
        p = os.path.join(out, "%s.in%d.f32" % (name, i))
        evals[i].tofile(p)
        inputs.append(p)
    return onnx_path, inputs, logits


def log_softmax(z):
    z = z - z.max()
    return z - math.log(np.exp(z).sum())


def run_json(vta, vtam, options, inputs):
    """vta run --json on the inputs: (its JSON objects, None), or (None, the failure)."""
    r = subprocess.run([vta, "run", vtam, "--json"] + options + ["--input=" + p for p in inputs],
                       capture_output=True, text=True)
    if r.returncode:
        return None, "run: " + (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if len(rows) != len(inputs):
        return None, "run printed %d results for %d inputs" % (len(rows), len(inputs))
    return rows, r.stderr


def check_segmenter(vta, vtam, arch, size, out, inputs, logits):
    """Every input's class map through vta run --output, against PyTorch's."""
    rows, err = run_json(vta, vtam, ["--target=fsim", "--top=1", "--output=" + os.path.join(out, arch + ".out")], inputs)
    if rows is None:
        return err
    sig = noise = 0.0
    agree = pixels = 0
    for row, z in zip(rows, logits):
        got = np.load(row["outputs"][0]["file"]).astype(np.float64)
        z = z[np.newaxis]  # the batch of one
        if got.shape != z.shape:
            return "output shape %s, PyTorch's %s" % (got.shape, z.shape)
        t = z.astype(np.float64)
        sig += float((t * t).sum())
        noise += float(((t - got) ** 2).sum())
        agree += int((got.argmax(axis=1) == t.argmax(axis=1)).sum())
        pixels += t.shape[0] * t.shape[2] * t.shape[3]
    sqnr = 10 * math.log10(sig / noise) if noise > 0 and sig > 0 else float("inf") if noise == 0 else float("-inf")
    fig = "%dx%d, pixel classes %.1f%% as PyTorch's, logit SQNR %.1f dB" % (size, size, 100.0 * agree / pixels, sqnr)
    if agree < MIN_PIXELS * pixels or sqnr < MIN_SQNR_DB:
        return "vs PyTorch: " + fig + " (needs %.0f%% and %.0f dB)" % (100 * MIN_PIXELS, MIN_SQNR_DB)
    return "ok " + fig


def check(vta, arch, size, out):
    onnx_path, inputs, logits = build(arch, size, out)
    vtam = os.path.join(out, arch + ".vtam")
    c = subprocess.run([vta, "compile", onnx_path, "-o", vtam, "--calib=" + os.path.join(out, arch + ".calib.f32"),
                        "--calib-count=%d" % N_CALIB], capture_output=True, text=True)
    if c.returncode:
        return "compile: " + (c.stderr.strip().splitlines() or ["exit %d" % c.returncode])[-1]
    # the split vta compile reports ("VTA n nodes, M MACs (p%); host ..."), for the figures
    split = [ln.split("split: ", 1)[1] for ln in c.stderr.splitlines() if "split: " in ln]
    t0 = time.monotonic()
    if arch in SEGMENTERS:
        msg = check_segmenter(vta, vtam, arch, size, out, inputs, logits)
    else:
        msg = check_classifier(vta, vtam, size, inputs, logits, "rtl" if arch.endswith("%rtl") else "fsim")
    ms = 1e3 * (time.monotonic() - t0) / N_EVAL
    where = "rtl" if arch.endswith("%rtl") else "fsim"
    return msg + ("; %s; %s %.0f ms an image (vta run, this host)" % (split[0], where, ms) if split and msg.startswith("ok ") else "")


def check_classifier(vta, vtam, size, inputs, logits, target):
    """Top-1 and log-probabilities of vta run --json against PyTorch's."""
    rows, err = run_json(vta, vtam, ["--target=" + target, "--top=10"], inputs)
    if rows is None:
        return err
    sig = noise = 0.0
    top1 = 0
    for row, z in zip(rows, logits):
        p = np.full(10, 1e-6)
        for e in row["top"]:
            p[e["index"]] = max(e["prob"], 1e-6)
        # both floored where vta run's 6 decimals end
        t = np.log(np.maximum(np.exp(log_softmax(z.astype(np.float64))), 1e-6))
        v = np.log(p)
        t, v = t - t.mean(), v - v.mean()
        sig += float((t * t).sum())
        noise += float(((t - v) ** 2).sum())
        top1 += int(np.argmax(p) == np.argmax(z))
    sqnr = 10 * math.log10(sig / noise) if noise > 0 and sig > 0 else float("inf") if noise == 0 else float("-inf")
    fig = "%dx%d, top-1 %d/%d, log-prob SQNR %.1f dB" % (size, size, top1, N_EVAL, sqnr)
    if "compiler's runner" in err:  # a host node libvta does not run (vta run says which)
        fig += ", with the compiler's runner for a node libvta lacks"
    if top1 < MIN_TOP1 or sqnr < MIN_SQNR_DB:
        return "vs PyTorch: " + fig + " (needs %d/%d and %.0f dB)" % (MIN_TOP1, N_EVAL, MIN_SQNR_DB)
    return "ok " + fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vta", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--size", type=int, default=0, help="input size for every architecture (0: the table's)")
    ap.add_argument("archs", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(1)
    failed = 0
    with open(a.results, "a") as res:
        for arch in a.archs or ARCHS:
            size = a.size or ARCHS.get(arch, 32 if arch.startswith("vit") else 64)
            try:
                msg = check(a.vta, arch, size, a.out)
            except Exception as e:  # an export or a script error is a failure of this architecture
                msg = "%s: %s" % (type(e).__name__, e)
            ok = msg.startswith("ok ")
            failed += not ok
            line = "%s torchvision/%s%s%s" % ("PASS" if ok else "FAIL", arch, " " if ok else ": ", msg[3:] if ok else msg)
            print(line, flush=True)
            res.write(line + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
