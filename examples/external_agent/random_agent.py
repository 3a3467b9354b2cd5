#!/usr/bin/env python3
"""A meeplezoo external agent: reads one JSON object per line on stdin, answers {"action": N} to each "act".

Any language works the same way: read a line, parse JSON, and for {"type": "act", ...} print one line with a
legal action (from "legal_actions"), flushing stdout. Rate it with:
    meeplezoo rate kerala --players 2 --agent external:examples/external_agent/random_agent.py
"""
import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        rng.seed(msg["seed"])
    elif msg["type"] == "act":
        print(json.dumps({"action": rng.choice(msg["legal_actions"])}), flush=True)
