"""How close does a block network get to the heuristic by imitation alone, and what does that win?

The heuristic plays itself (``--games`` games, every seat; the targets are those of expert iteration's
warm start: half its move, half the softmax of its action scores).  A block network of ``--width``
(``--trunk-layers`` trunk layers) is fit for ``--epochs`` passes (AdamW, cosine learning rate) on 95% of
the decisions.  Reported: the held-out agreement with the heuristic's move after each epoch; on 40 fresh
games of the heuristic, the share of decisions where the network's move is one the heuristic scores as
high as its own (a tie is no mistake) and the share it scores at least 0.5 lower, by phase; and the network
alone, greedy, against the heuristic (``--eval-games``, seats rotated).  One row per run is appended to
``--json``.

    .venv/bin/python benchmarks/imitation_scale.py --game haus_der_sonne --games 4000 --width 512 --epochs 8
    .venv/bin/python benchmarks/imitation_scale.py --game haus_der_sonne --option derived_features=true
    .venv/bin/python benchmarks/imitation_scale.py --game kerala --games 1200 --width 192 --channels 16 \
        --conv-layers 1 --board-channels 2 --option derived_features=true --option elephant_view=true
    .venv/bin/python benchmarks/imitation_scale.py --game kerala --games 1200 --width 192 --channels 16 \
        --conv-layers 1 --board-channels 2 --option derived_features=true --option elephant_view=true \
        --action-hidden 128 --save runs/kerala_action_head_imitation.zip
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter

import numpy as np

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def regret_by_phase(net, game, games: int = 40) -> dict[str, object]:
    """The network's move scored by the heuristic's own action scores, on the heuristic's games."""
    from meeplezoo.agents import make

    h = make("heuristic", game, num_players=game.num_players, seed=2)
    reg: list[float] = []
    seen: Counter = Counter()
    wrong: Counter = Counter()
    for s in range(games):
        st = game.new_state(900 + s)
        while not st.is_terminal():
            mask = st.legal_mask()
            legal = [int(a) for a in np.flatnonzero(mask)]
            # decisions the heuristic takes without scoring every action (scores None) are not counted
            scores = h.action_scores(st, legal) if len(legal) > 1 else None
            if scores is not None:
                sc = np.asarray(scores, dtype=float)
                logits, _ = net.forward(st.observe(st.current_player))
                mine = legal[int(np.argmax(logits[0][legal]))]
                r = float(sc.max() - sc[legal.index(mine)])
                reg.append(r)
                seen[str(st.phase)] += 1
                wrong[str(st.phase)] += r > 0.5
            st.apply(h.act(st.observe(st.current_player), mask, state=st))
    arr = np.asarray(reg)
    return {"regret_decisions": len(arr), "as_good_as_heuristic": round(float((arr < 1e-9).mean()), 4),
            "worse_by_0_5": round(float((arr > 0.5).mean()), 4),
            "worse_by_0_5_by_phase": {p: round(wrong[p] / seen[p], 4) for p in sorted(seen)},
            "decisions_by_phase": dict(sorted(seen.items()))}


def main() -> None:
    import torch

    from meeplezoo.agents.network import NetworkAgent, PolicyValueNet
    from meeplezoo.training.exit import ExItConfig, generate
    from meeplezoo.training.networks import BlockNet, BlockNetConfig, config_dict
    from meeplezoo.training.ppo import evaluate

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", required=True)
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--trunk-layers", type=int, default=1)
    p.add_argument("--channels", type=int, default=BlockNetConfig.channels, help="channels of the board convolutions")
    p.add_argument("--conv-layers", type=int, default=BlockNetConfig.conv_layers)
    p.add_argument("--board-channels", type=int, default=BlockNetConfig.board_channels,
                   help="0: boards averaged over their cells; N: N channels kept per cell")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (repeatable), e.g. derived_features=true; values are read as JSON")
    p.add_argument("--json", default=os.path.join(RESULTS, "imitation_scale.json"))
    p.add_argument("--action-hidden", type=int, default=0,
                   help="an action head of this width (a game with action features: kerala with elephant_view)")
    p.add_argument("--save", default=None, metavar="PATH",
                   help="also write the fitted network as a checkpoint (e.g. a start for --algo distill --init PATH)")
    args = p.parse_args()
    torch.set_num_threads(1)
    c0 = time.process_time()
    options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            p.error(f"--option {item!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    cfg = ExItConfig(game=args.game, options=options, warm_start_games=1)
    game = cfg.make_game()
    data = generate(cfg, "imitation", list(range(50_000, 50_000 + args.games)))
    n = len(data["obs"])
    cut = int(n * 0.95)
    train = {k: v[:cut] for k, v in data.items()}
    held = {k: v[cut:] for k, v in data.items()}
    torch.manual_seed(args.seed)
    bc = BlockNetConfig(flat_hidden=args.width, trunk_hidden=args.width, trunk_layers=args.trunk_layers,
                        channels=args.channels, conv_layers=args.conv_layers, board_channels=args.board_channels,
                        action_hidden=args.action_hidden)
    net = BlockNet(game.observation_spec, game.num_actions, game.num_players, bc)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, args.epochs)
    rng = np.random.default_rng(args.seed)

    def agreement() -> float:
        net.eval()
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(held["obs"].astype(np.float32)))
            logits = logits.masked_fill(~torch.as_tensor(held["mask"]), -1e9)
        return float((logits.argmax(1).numpy() == held["pi"].astype(np.float32).argmax(1)).mean())

    curve = []
    for epoch in range(args.epochs):
        net.train()
        order = rng.permutation(cut)
        for i in range(0, cut, 256):
            idx = order[i:i + 256]
            logits, v = net(torch.as_tensor(train["obs"][idx].astype(np.float32)))
            logp = torch.log_softmax(logits.masked_fill(~torch.as_tensor(train["mask"][idx]), -1e9), 1)
            loss = -(torch.as_tensor(train["pi"][idx].astype(np.float32)) * logp).sum(1).mean()
            loss = loss + 0.1 * ((v - torch.as_tensor(train["z"][idx])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        curve.append(round(agreement(), 4))
        print(f"epoch {epoch + 1}: held-out agreement {curve[-1]:.3f}", flush=True)
    pv = PolicyValueNet(game, net.arrays(), config_dict(bc))
    if args.save:
        pv.save(args.save, algorithm="imitation", imitation_games=args.games, samples=n, seed=args.seed,
                training_cpu_seconds=round(time.process_time() - c0, 1))
    regret = regret_by_phase(pv, game)
    res = evaluate(NetworkAgent(pv), game, ["heuristic"], args.eval_games, seed=11)["heuristic"]
    row = {"game": args.game, "players": game.num_players, "options": options, "imitation_games": args.games,
           "decisions": n,
           "width": args.width, "trunk_layers": args.trunk_layers, "channels": args.channels,
           "conv_layers": args.conv_layers, "board_channels": args.board_channels,
           "action_hidden": args.action_hidden, "parameters": pv.num_parameters,
           "epochs": args.epochs, "held_out_agreement_by_epoch": curve, **regret,
           "opponent": "heuristic", "games": res.games, "win_rate": res.win_rate, "ci_low": res.interval[0],
           "ci_high": res.interval[1], "cpu_seconds": round(time.process_time() - c0, 1)}
    print(json.dumps(row, indent=1))
    rows = json.load(open(args.json)) if os.path.exists(args.json) else []
    rows.append(row)
    with open(args.json + ".tmp", "w") as f:
        json.dump(rows, f, indent=1)
    os.replace(args.json + ".tmp", args.json)


if __name__ == "__main__":
    main()
