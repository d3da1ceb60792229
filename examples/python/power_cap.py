"""A facility power cap, written in Python: jobs start in queue order (skipping those that would break the
cap) only while the facility peak predicted with every running job at its peak power stays at or under
cap_w; with gpu_cap=True a job that does not fit at full power starts with its GPUs capped to the
headroom (not below min_cap_fraction x TDP). The same arithmetic as the C++ `powercap` policy, written out
from the job and fleet figures the context gives, so it reproduces it bit for bit (tested on the PAI
scenario).

    PYTHONPATH=build/python python3 examples/python/power_cap.py [SCENARIO [CAP_W]]
"""

import sys

import fleetwatt


def peak_increment_per_gpu_w(job, gpu_idle_w):
    """A job's draw over idle at its peak, per GPU, under its own cap."""
    w = max(job.peak_w, job.valley_w)
    idle = gpu_idle_w
    if job.group is not None:
        idle = job.gpu_idle_w  # placed: its own GPU type's idle power
    elif job.queued_peak_w > 0:
        w, idle = job.queued_peak_w, job.queued_idle_w  # several GPU types: a bound over them
    if 0 < job.power_cap_w < w:
        w = job.power_cap_w
    return max(0.0, w - idle)


def predicted_peak_facility_w(ctx, fp):
    """Facility power with every running, unpaused job at its peak: idle fleet + network + increments."""
    idle = fp.idle_it_w if fp.idle_it_w is not None else ctx.nodes * fp.node_base_w + ctx.gpus * fp.gpu_idle_w
    it = idle + fp.network_w
    for j in ctx.running:
        job = ctx.job(j)
        if not job.paused:
            it += len(job.gpus) * peak_increment_per_gpu_w(job, fp.gpu_idle_w)
    return it * fp.pue


class PowerCap(fleetwatt.Scheduler):
    name = "powercap"

    def __init__(self, cap_w, gpu_cap=False, min_cap_fraction=0.5):
        self.cap_w = cap_w
        self.gpu_cap = gpu_cap
        self.min_cap_fraction = min_cap_fraction
        self.capped_starts = 0

    def schedule(self, ctx):
        fp = ctx.fleet_power
        peak = predicted_peak_facility_w(ctx, fp)
        for j in ctx.queue:  # a copy: starting jobs changes the queue
            job = ctx.job(j)
            n = job.n_gpus
            inc = n * peak_increment_per_gpu_w(job, fp.gpu_idle_w) * fp.pue
            if peak + inc <= self.cap_w:
                gpus = ctx.place(j)
                if gpus is not None:
                    ctx.start(j, gpus)
                    peak += inc
                continue
            if not self.gpu_cap:
                continue
            idle = job.queued_idle_w if job.queued_peak_w > 0 else fp.gpu_idle_w
            cap = idle + (self.cap_w - peak) / fp.pue / n
            if cap < self.min_cap_fraction * fp.gpu_tdp_w or cap <= fp.gpu_idle_w:
                continue
            gpus = ctx.place(j)
            if gpus is not None:
                ctx.set_power_cap(j, cap)
                capped_inc = n * peak_increment_per_gpu_w(ctx.job(j), fp.gpu_idle_w) * fp.pue
                ctx.start(j, gpus)
                peak += capped_inc
                self.capped_starts += 1

    def metrics(self):
        return {"capped_starts": self.capped_starts}


if __name__ == "__main__":
    scenario = sys.argv[1] if len(sys.argv) > 1 else "examples/scenarios/pai-preset-policies.toml"
    cap_w = float(sys.argv[2]) if len(sys.argv) > 2 else 24000.0
    r = fleetwatt.run(scenario, scheduler=PowerCap(cap_w))
    print(r)
    print(f"highest facility interval mean {r.facility['facility_power_W'].max():.0f} W (cap {cap_w:.0f} W)")
