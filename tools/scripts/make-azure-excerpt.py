#!/usr/bin/env python3
"""Writes examples/requests/azure-conv-10min.csv: the first ten minutes of the Azure LLM inference trace 2023
(conversation), in fleetwatt's plain request format (time_s,input_tokens,output_tokens; times from the first
request). Source: ../shared/data/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv (CC-BY 4.0; Patel et
al., "Splitwise: Efficient generative LLM inference using phase splitting", ISCA 2024).

Usage: tools/scripts/make-azure-excerpt.py [SHARED_DATA] [OUT]
"""
import csv
import datetime
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
data = Path(sys.argv[1]) if len(sys.argv) > 1 else root.parent / "shared" / "data"
out = Path(sys.argv[2]) if len(sys.argv) > 2 else root / "examples" / "requests" / "azure-conv-10min.csv"
source = data / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"


def seconds(stamp: str) -> float:
    # Seven fractional digits: Python's parser takes six.
    day, frac = stamp.split(".")
    t = datetime.datetime.strptime(day, "%Y-%m-%d %H:%M:%S")
    return t.timestamp() + float("0." + frac)


with open(source, newline="", encoding="utf-8-sig") as f:
    rows = list(csv.DictReader(f))
t0 = seconds(rows[0]["TIMESTAMP"])
with open(out, "w", newline="") as f:
    f.write("time_s,input_tokens,output_tokens\n")
    for r in rows:
        t = seconds(r["TIMESTAMP"]) - t0
        if t >= 600.0:
            break
        f.write(f"{t:.3f},{r['ContextTokens']},{r['GeneratedTokens']}\n")
