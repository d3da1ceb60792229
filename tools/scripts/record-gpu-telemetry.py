#!/usr/bin/env python3
"""Records one GPU's power telemetry (nvidia-smi at 20 Hz, NVML's energy counter) while it runs known work:
idle, a Llama-3-8B-shaped decoder serving decode batches of 1-256 sequences and prompts of 512-8192 tokens,
optionally a request trace served in real time on it (--replay), then a GPT-3 XL (1.3 B) training loop of
epochs (training steps, an evaluation, a copy of the weights to the host). Every window's start and end,
iteration count and time, and NVML energy go to phases.json beside the raw nvidia-smi CSV (a replay's
requests to requests.csv), so that the tests can check fleetwatt's serving and training predictions and its
calibrate segmentation against a real GPU. Weights and tokens are random: time and power depend on shapes
and data types, not on what a model has learnt.

Needs PyTorch with CUDA and nvidia-smi; writes into --out. Run:
    python3 tools/scripts/record-gpu-telemetry.py --out /tmp/telemetry
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

QUERY_FULL = ("timestamp,index,name,power.draw,power.draw.instant,power.draw.average,utilization.gpu,"
              "utilization.memory,clocks.sm,clocks.mem,temperature.gpu,memory.used,power.limit")
QUERY_BASIC = "timestamp,index,name,power.draw,utilization.gpu,clocks.sm,clocks.mem,temperature.gpu,memory.used"


def log(*args):
    print(f"[{time.time():.3f}]", *args, flush=True)


class Recorder:
    """The nvidia-smi sampler, NVML's energy counter and the list of timed windows."""

    def __init__(self, out, period_ms):
        self.out = out
        self.windows = []
        self.meta = {"unix_at_start": time.time(), "tz": time.strftime("%z")}
        query = QUERY_FULL
        probe = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv"], capture_output=True,
                               text=True)
        if probe.returncode != 0:
            log("full query refused:", probe.stdout.strip(), probe.stderr.strip())
            query = QUERY_BASIC
        self.meta["query"] = query
        self.csv = open(os.path.join(out, "nvidia-smi.csv"), "w")
        self.smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={query}", "--format=csv", "-lms", str(period_ms)],
                                    stdout=self.csv, stderr=subprocess.STDOUT)
        self.nvml = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.pynvml = pynvml
            self.nvml = pynvml.nvmlDeviceGetHandleByIndex(0)
            self.energy_mJ()
        except Exception as error:  # the counter is a cross-check; the CSV is the record
            log("NVML energy counter unavailable:", repr(error))
            self.nvml = None

    def energy_mJ(self):
        if self.nvml is None:
            return None
        return int(self.pynvml.nvmlDeviceGetTotalEnergyConsumption(self.nvml))

    def window(self, name, kind, start, end, e0, e1, **fields):
        item = {"name": name, "kind": kind, "start_unix": start, "end_unix": end, "duration_s": end - start}
        if e0 is not None and e1 is not None:
            item["nvml_energy_J"] = (e1 - e0) / 1000.0
            item["nvml_mean_power_W"] = (e1 - e0) / 1000.0 / (end - start)
        item.update(fields)
        self.windows.append(item)
        log("window", json.dumps(item))
        self.save()

    def save(self):
        with open(os.path.join(self.out, "phases.json"), "w") as f:
            json.dump({"meta": self.meta, "windows": self.windows}, f, indent=1)

    def close(self):
        time.sleep(0.5)
        self.smi.terminate()
        self.smi.wait(timeout=10)
        self.csv.close()
        self.save()


def idle(rec, name, seconds):
    e0, t0 = rec.energy_mJ(), time.time()
    time.sleep(seconds)
    rec.window(name, "idle", t0, time.time(), e0, rec.energy_mJ())


class Decoder:
    """Llama 3 8B's shape in bf16 with random weights, and the pieces of its layers both serving parts run."""

    def __init__(self, args, seed):
        import torch
        import torch.nn.functional as F

        self.torch, self.F = torch, F
        self.dev, self.dt = torch.device("cuda"), torch.bfloat16
        self.layers, self.d, self.heads, self.kv_heads, self.ffn, self.vocab, self.hd = (
            32, 4096, 32, 8, 14336, 128256, 128)
        if args.small:
            self.layers, self.vocab = 4, 32000
        torch.manual_seed(seed)
        d, hd = self.d, self.hd

        def w(*shape):
            return torch.randn(*shape, device=self.dev, dtype=self.dt) * 0.02

        def ones():
            return torch.ones(d, device=self.dev, dtype=self.dt)

        self.blocks = [{"wqkv": w(d, (self.heads + 2 * self.kv_heads) * hd), "wo": w(self.heads * hd, d),
                        "w13": w(d, 2 * self.ffn), "w2": w(self.ffn, d), "n1": ones(), "n2": ones()}
                       for _ in range(self.layers)]
        self.embed, self.head, self.norm = w(self.vocab, d), w(d, self.vocab), ones()
        angle = torch.rand(hd // 2, device=self.dev, dtype=torch.float32)
        self.cos, self.sin = angle.cos().to(self.dt), angle.sin().to(self.dt)

    def parameters(self):
        return (sum(t.numel() for b in self.blocks for t in b.values()) + self.embed.numel() + self.head.numel()
                + self.norm.numel())

    def rms(self, x, g):
        return self.F.rms_norm(x, (self.d,), g, 1e-5)

    def rope(self, x):
        x1, x2 = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return self.torch.cat((x1 * self.cos - x2 * self.sin, x2 * self.cos + x1 * self.sin), dim=-1)

    def qkv(self, x, b):
        """Queries [rows, heads, hd] and keys, values [rows, kv_heads, hd] of x [rows, d], rotated."""
        rows, heads, kv, hd = x.shape[0], self.heads, self.kv_heads, self.hd
        qkv = self.rms(x, b["n1"]) @ b["wqkv"]
        q = self.rope(qkv[:, : heads * hd].view(rows, heads, hd))
        k = self.rope(qkv[:, heads * hd: (heads + kv) * hd].view(rows, kv, hd))
        return q, k, qkv[:, (heads + kv) * hd:].view(rows, kv, hd)

    def rest(self, x, a, b):
        """The layer after attention: output projection, residual, the gated feed-forward, residual."""
        x = x + a @ b["wo"]
        gu = self.rms(x, b["n2"]) @ b["w13"]
        return x + (self.F.silu(gu[..., : self.ffn]) * gu[..., self.ffn:]) @ b["w2"]

    def token_attention(self, q, kc, vc):
        """One query per head against cached keys kc, vc [batch, kv_heads, context, hd]: a kv head's query
        group is its 4 "positions", none masked."""
        batch = q.shape[0]
        a = self.F.scaled_dot_product_attention(q.view(batch, self.kv_heads, self.heads // self.kv_heads, self.hd),
                                                kc, vc)
        return a.reshape(batch, self.heads * self.hd)

    def prompt_attention(self, q, k, v):
        """Causal attention of a prompt's queries [n, heads, hd] over its keys and values [n, kv_heads, hd]."""
        n = q.shape[0]
        q, k, v = (t.transpose(0, 1).unsqueeze(0) for t in (q, k, v))
        try:
            a = self.F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        except Exception:
            rep = self.heads // self.kv_heads
            a = self.F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1),
                                                    is_causal=True)
        return a[0].transpose(0, 1).reshape(n, self.heads * self.hd)

    def prompt(self, n, cache=None):
        """A prompt of n random tokens; its keys and values into cache(layer, k, v) when given."""
        x = self.embed[self.torch.randint(0, self.vocab, (n,), device=self.dev)]
        for i, b in enumerate(self.blocks):
            q, k, v = self.qkv(x, b)
            if cache is not None:
                cache(i, k, v)
            x = self.rest(x, self.prompt_attention(q, k, v), b)
        return self.torch.argmax(self.rms(x[-1:], self.norm) @ self.head, dim=-1)

    def graphed(self, step):
        """step captured as a CUDA graph (after warming up on a side stream), or step itself where capture
        fails; and whether it was captured."""
        torch = self.torch
        try:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(3):
                    step()
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                step()
            return graph.replay, True
        except Exception as error:
            log("CUDA graph capture failed, eager:", repr(error))
            torch.cuda.synchronize()
            return step, False


def timed_window(rec, name, kind, run, reps, window_s, work, **fields):
    """Runs `run` in rounds of `reps` until window_s has passed, timed by CUDA events, and records the window
    with its iterations, mean iteration and `work` (tokens) per second."""
    import torch

    torch.cuda.synchronize()
    e0, t0 = rec.energy_mJ(), time.time()
    start_ev, end_ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start_ev.record()
    n = 0
    while time.time() - t0 < window_s:
        for _ in range(reps):
            run()
        n += reps
        torch.cuda.synchronize()
    end_ev.record()
    end_ev.synchronize()
    gpu_s = start_ev.elapsed_time(end_ev) / 1000.0
    rec.window(name, kind, t0, time.time(), e0, rec.energy_mJ(), iterations=n, time_per_iteration_s=gpu_s / n,
               tokens_per_s=work * n / gpu_s, **fields)


def serving(rec, args):
    import torch

    m = Decoder(args, seed=1)
    rec.meta["serving_model"] = {"layers": m.layers, "hidden": m.d, "heads": m.heads, "kv_heads": m.kv_heads,
                                 "ffn_hidden": m.ffn, "vocab": m.vocab, "parameters": m.parameters(),
                                 "dtype": "bf16"}
    log("serving model", m.parameters() / 1e9, "B parameters")

    def decode_window(batch, context):
        # The KV cache of `batch` sequences at `context` tokens; each step writes the newest token's keys and
        # values at the last position and attends over all of them (a fixed shape, so a CUDA graph holds it).
        caches = [(torch.randn(batch, m.kv_heads, context, m.hd, device=m.dev, dtype=m.dt),
                   torch.randn(batch, m.kv_heads, context, m.hd, device=m.dev, dtype=m.dt)) for _ in range(m.layers)]
        tokens = torch.randint(0, m.vocab, (batch,), device=m.dev)

        def step():
            x = m.embed[tokens]
            for b, (kc, vc) in zip(m.blocks, caches):
                q, k, v = m.qkv(x, b)
                kc[:, :, context - 1].copy_(k)
                vc[:, :, context - 1].copy_(v)
                x = m.rest(x, m.token_attention(q, kc, vc), b)
            return torch.argmax(m.rms(x, m.norm) @ m.head, dim=-1)

        run, graphed = m.graphed(step)
        for _ in range(5):
            run()
        timed_window(rec, f"decode-b{batch}-ctx{context}", "decode", run, 10, args.window_s, batch, batch=batch,
                     context_tokens=context, cuda_graph=graphed)
        del caches
        torch.cuda.empty_cache()

    def prefill_window(tokens_n):
        def run():
            m.prompt(tokens_n)

        for _ in range(2):
            run()
        timed_window(rec, f"prefill-{tokens_n}", "prefill", run, 2, args.window_s, tokens_n,
                     prompt_tokens=tokens_n)

    with torch.inference_mode():
        for batch in args.decode_batches:
            try:
                decode_window(batch, args.context)
            except Exception:
                log("decode window failed:", traceback.format_exc())
            idle(rec, f"gap-after-decode-b{batch}", args.gap_s)
        for tokens_n in args.prefill_tokens:
            try:
                prefill_window(tokens_n)
            except Exception:
                log("prefill window failed:", traceback.format_exc())
            idle(rec, f"gap-after-prefill-{tokens_n}", args.gap_s)
    del m
    torch.cuda.empty_cache()


def replay(rec, args):
    """Serves a request trace in real time on the Llama-3-8B-shaped decoder: requests admitted first come
    first served into free slots of a static KV cache (at most --replay-batch), each prompt run whole as it is
    admitted (prefill first, as vLLM's default scheduler did before chunked prefill), then one decode step
    of every running sequence, replayed as a CUDA graph captured per (batch, context) bucket."""
    import collections
    import torch

    m = Decoder(args, seed=3)
    slots, cap = args.replay_batch, args.replay_context
    caches = [(torch.zeros(slots, m.kv_heads, cap, m.hd, device=m.dev, dtype=m.dt),
               torch.zeros(slots, m.kv_heads, cap, m.hd, device=m.dev, dtype=m.dt)) for _ in range(m.layers)]
    tokens = torch.randint(0, m.vocab, (slots,), device=m.dev)
    positions = torch.zeros(slots, dtype=torch.long, device=m.dev)
    rows = torch.arange(slots, device=m.dev)

    def decode(batch, context):
        x = m.embed[tokens[:batch]]
        pos, idx = positions[:batch], rows[:batch]
        for b, (kc, vc) in zip(m.blocks, caches):
            q, k, v = m.qkv(x, b)
            kc[idx, :, pos] = k
            vc[idx, :, pos] = v
            x = m.rest(x, m.token_attention(q, kc[:batch, :, :context], vc[:batch, :, :context]), b)
        return torch.argmax(m.rms(x, m.norm) @ m.head, dim=-1)

    def prefill(slot, n):
        def keep(i, k, v):
            caches[i][0][slot, :, :n] = k.transpose(0, 1)
            caches[i][1][slot, :, :n] = v.transpose(0, 1)

        return m.prompt(n, keep)

    batch_buckets = [b for b in (1, 2, 4, 8, 16, 32, 64, 128, 256) if b < slots] + [slots]
    context_buckets = [c for c in (512, 1024, 2048, 4096, 8192) if c < cap] + [cap]
    graphs = {}
    with torch.inference_mode():
        for bb in batch_buckets:
            for cb in context_buckets:
                graphs[(bb, cb)], captured = m.graphed(lambda b_=bb, c_=cb: decode(b_, c_))
                rec.meta["replay_cuda_graphs"] = rec.meta.get("replay_cuda_graphs", 0) + int(captured)
        prefill(0, 64)
        torch.cuda.synchronize()
    log("replay:", rec.meta["replay_cuda_graphs"], "of", len(graphs), "decode graphs captured")

    trace = []
    with open(args.replay) as f:
        f.readline()
        for line in f:
            t, i, o = line.strip().split(",")[:3]
            if float(t) > args.replay_s:
                break
            trace.append((float(t), int(i), int(o)))
    pending = collections.deque(enumerate(trace))
    waiting, running, done = collections.deque(), [], []
    e0, t0 = rec.energy_mJ(), time.time()
    iterations = prompts = 0
    with torch.inference_mode():
        while pending or waiting or running:
            now = time.time() - t0
            if now > args.replay_s + 120:
                log("replay: stopped at its time limit with", len(waiting), "waiting and", len(running), "running")
                break
            while pending and pending[0][1][0] <= now:
                waiting.append(pending.popleft())
            while waiting and len(running) < slots:
                rid, (arrival, n_in, n_out) = waiting.popleft()
                n_out = max(1, min(n_out, cap - 2))
                n_in = max(1, min(n_in, cap - n_out - 1))
                slot = len(running)
                admit = time.time() - t0
                prefill(slot, n_in)
                torch.cuda.synchronize()
                prompts += 1
                first = time.time() - t0
                req = {"record": rid, "arrival_s": arrival, "admit_s": admit, "first_token_s": first,
                       "input_tokens": n_in, "output_tokens": n_out, "pos": n_in, "left": n_out - 1}
                if req["left"] == 0:
                    req["end_s"] = first
                    done.append(req)
                else:
                    running.append(req)
            if not running:
                if pending:
                    time.sleep(max(0.0, min(0.002, pending[0][1][0] - (time.time() - t0))))
                continue
            n = len(running)
            bb = next(b for b in batch_buckets if b >= n)
            cb = next(c for c in context_buckets if c >= max(r["pos"] for r in running) + 1)
            positions[:n].copy_(torch.tensor([r["pos"] for r in running], dtype=torch.long), non_blocking=False)
            graphs[(bb, cb)]()
            torch.cuda.synchronize()
            iterations += 1
            end = time.time() - t0
            keep = []
            for r in running:
                r["pos"] += 1
                r["left"] -= 1
                if r["left"] == 0 or r["pos"] >= cap - 1:
                    r["end_s"] = end
                    done.append(r)
                else:
                    keep.append(r)
            # Compact the survivors into the first slots (the graphs read slots [0, batch)).
            for new, r in enumerate(keep):
                old = running.index(r)
                if old != new:
                    for kc, vc in caches:
                        kc[new].copy_(kc[old])
                        vc[new].copy_(vc[old])
            running = keep
    t1 = time.time()
    rec.window("replay", "replay", t0, t1, e0, rec.energy_mJ(), requests=len(done), prompts=prompts,
               iterations=iterations, trace=os.path.basename(args.replay), trace_s=args.replay_s,
               max_batch=slots, context_cap=cap)
    with open(os.path.join(rec.out, "requests.csv"), "w") as f:
        f.write("record,arrival_s,admit_s,first_token_s,end_s,input_tokens,output_tokens\n")
        for r in sorted(done, key=lambda r: r["record"]):
            f.write(f"{r['record']},{r['arrival_s']:.3f},{r['admit_s']:.4f},{r['first_token_s']:.4f},"
                    f"{r['end_s']:.4f},{r['input_tokens']},{r['output_tokens']}\n")
    rec.meta["replay_start_unix"] = t0
    del m, caches, graphs
    torch.cuda.empty_cache()

def training(rec, args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    dev = torch.device("cuda")
    # GPT-3 XL with its vocabulary padded to a multiple of 64, as Megatron-LM pads it.
    layers, d, heads, vocab, seq, batch = 24, 2048, 16, 50304, 2048, args.train_batch
    if args.small:
        layers, d, heads, vocab, seq = 2, 256, 4, 1000, 256
    torch.manual_seed(2)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            bsz, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(bsz, s, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(bsz, s, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln = nn.LayerNorm(d)

        def forward(self, ids):
            x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1], device=ids.device))
            for block in self.blocks:
                x = block(x)
            return self.ln(x) @ self.wte.weight.t()  # the tied output projection

    with dev:  # built on the GPU: a CPU initialisation of 1.3 B parameters takes longer than the run
        model = Gpt()
    params = sum(p.numel() for p in model.parameters())
    rec.meta["training_model"] = {"name": "gpt3_xl", "layers": layers, "hidden": d, "heads": heads, "vocab": vocab,
                                  "seq": seq, "batch": batch, "parameters": params,
                                  "precision": "bf16 autocast, fp32 weights, fused AdamW"}
    log("training model", params / 1e9, "B parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    data = torch.randint(0, vocab, (4, batch, seq + 1), device=dev)

    def train_step(i):
        ids = data[i % 4]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.float().view(-1, vocab), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for i in range(3):  # warm-up: cuBLAS heuristics, the optimizer's state
        train_step(i)
    torch.cuda.synchronize()
    steps = []
    for epoch in range(args.epochs):
        e0, t0 = rec.energy_mJ(), time.time()
        for i in range(args.steps_per_epoch):
            s0 = time.time()
            train_step(i)
            torch.cuda.synchronize()
            steps.append({"epoch": epoch, "start_unix": s0, "end_unix": time.time()})
        t1 = time.time()
        times = [s["end_unix"] - s["start_unix"] for s in steps[-args.steps_per_epoch:]]
        rec.window(f"train-epoch{epoch}", "train", t0, t1, e0, rec.energy_mJ(), epoch=epoch,
                   iterations=args.steps_per_epoch, time_per_iteration_s=sorted(times)[len(times) // 2],
                   samples_per_step=batch, seq=seq)
        e0, t0 = rec.energy_mJ(), time.time()
        model.eval()
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            for i in range(args.eval_batches):
                model(data[i % 4][:, :-1]).float().softmax(-1).max()
        torch.cuda.synchronize()
        model.train()
        t1 = time.time()
        rec.window(f"eval-epoch{epoch}", "eval", t0, t1, e0, rec.energy_mJ(), epoch=epoch,
                   iterations=args.eval_batches, time_per_iteration_s=(t1 - t0) / max(args.eval_batches, 1))
        e0, t0 = rec.energy_mJ(), time.time()
        host = {k: v.detach().to("cpu") for k, v in model.state_dict().items()}
        del host
        t1 = time.time()
        rec.window(f"save-epoch{epoch}", "save", t0, t1, e0, rec.energy_mJ(), epoch=epoch,
                   bytes=params * 4)
    rec.meta["training_steps"] = steps
    del model, opt, data
    torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--period-ms", type=int, default=50)
    p.add_argument("--window-s", type=float, default=5.0)
    p.add_argument("--gap-s", type=float, default=1.5)
    p.add_argument("--context", type=int, default=1024)
    p.add_argument("--decode-batches", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8, 32, 64, 128, 256])
    p.add_argument("--prefill-tokens", type=lambda s: [int(x) for x in s.split(",")], default=[512, 2048, 8192])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--steps-per-epoch", type=int, default=16)
    p.add_argument("--eval-batches", type=int, default=8)
    p.add_argument("--train-batch", type=int, default=8)
    p.add_argument("--replay", default="", help="a request trace (time_s,input_tokens,output_tokens) to serve")
    p.add_argument("--replay-s", type=float, default=60.0, help="the trace's first seconds to serve")
    p.add_argument("--replay-batch", type=int, default=64, help="sequences the replay runs at once")
    p.add_argument("--replay-context", type=int, default=4096, help="tokens a sequence's cache holds")
    p.add_argument("--small", action="store_true", help="small shapes, to try the script quickly")
    p.add_argument("--skip", default="", help="comma-separated parts to leave out: serving, training")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    skip = set(filter(None, args.skip.split(",")))
    for cmd, name in ((["nvidia-smi", "-q"], "nvidia-smi-q.txt"),):
        with open(os.path.join(args.out, name), "w") as f:
            subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    rec = Recorder(args.out, args.period_ms)
    import shutil
    rec.meta["dcgmi"] = shutil.which("dcgmi")
    rec.meta["nv_hostengine"] = shutil.which("nv-hostengine")
    try:
        idle(rec, "idle-no-context", 6.0)
        import torch
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        rec.meta["torch"] = torch.__version__
        rec.meta["device"] = torch.cuda.get_device_name(0)
        idle(rec, "idle-context", 4.0)
        if "serving" not in skip:
            try:
                serving(rec, args)
            except Exception:
                log("serving failed:", traceback.format_exc())
            idle(rec, "idle-after-serving", 3.0)
        if args.replay:
            try:
                replay(rec, args)
            except Exception:
                log("replay failed:", traceback.format_exc())
            idle(rec, "idle-after-replay", 3.0)
        if "training" not in skip:
            try:
                training(rec, args)
            except Exception:
                log("training failed:", traceback.format_exc())
        idle(rec, "idle-end", 5.0)
    finally:
        rec.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
