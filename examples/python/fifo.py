"""First in, first out, written in Python: the head of the queue starts as soon as the scenario's placement
finds it GPUs; nothing overtakes it. It reproduces the C++ `fifo` policy bit for bit (the Python tests
check it on the shipped PAI scenario).

    PYTHONPATH=build/python python3 examples/python/fifo.py [SCENARIO]
"""

import sys

import fleetwatt


class Fifo(fleetwatt.Scheduler):
    name = "fifo"

    def schedule(self, ctx):
        queue = ctx.queue  # a live view: starting the head removes it
        while queue:
            head = queue[0]
            gpus = ctx.place(head)
            if gpus is None:
                return
            ctx.start(head, gpus)


if __name__ == "__main__":
    scenario = sys.argv[1] if len(sys.argv) > 1 else "examples/scenarios/day-fleet.toml"
    print(fleetwatt.run(scenario, scheduler=Fifo()))
