"""Loading PPO checkpoints safely: metadata, weights, sizes, pickles, and the same check on every path.

The checkpoints here are written by hand (the two meeplezoo members with
random weights), so no torch is needed and every fault can be planted.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

import meeplezoo
from meeplezoo.agents.ppo import CHECKPOINT_FORMAT, METADATA_MEMBER, WEIGHTS_MEMBER, PPOAgent, read_metadata
from toygame import ToyGame


def metadata_for(game, arch=(8, 8)) -> dict:
    return {"format": CHECKPOINT_FORMAT, "game": game.name, "num_players": game.num_players,
            "options": dict(game.options), "observation_version": type(game).observation_version,
            "observation_size": game.observation_shape[0], "num_actions": game.num_actions,
            "net_arch": {"features": [arch[0]], "pi": list(arch[1:]), "vf": list(arch[1:])},
            "activation": "tanh", "training_steps": 0}


def arrays_for(meta: dict, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out, last = {}, meta["observation_size"]
    names = [f"features_extractor.net.{2 * i}" for i in range(len(meta["net_arch"]["features"]))]
    names += [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(meta["net_arch"]["pi"]))]
    for name, width in zip(names, meta["net_arch"]["features"] + meta["net_arch"]["pi"]):
        out[name + ".weight"] = rng.normal(size=(width, last)).astype(np.float32)
        out[name + ".bias"] = rng.normal(size=width).astype(np.float32)
        last = width
    out["action_net.weight"] = rng.normal(size=(meta["num_actions"], last)).astype(np.float32)
    out["action_net.bias"] = rng.normal(size=meta["num_actions"]).astype(np.float32)
    return out


def write_checkpoint(path, meta, arrays=None, *, metadata_text: str | None = None, weights: bytes | None = None,
                     extra: dict[str, bytes] | None = None) -> str:
    if weights is None:
        buf = io.BytesIO()
        np.savez(buf, **(arrays if arrays is not None else arrays_for(meta)))
        weights = buf.getvalue()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(METADATA_MEMBER, metadata_text if metadata_text is not None else json.dumps(meta))
        zf.writestr(WEIGHTS_MEMBER, weights)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return str(path)


def test_hand_written_checkpoint_loads_and_plays(tmp_path):
    game = ToyGame(2)
    path = write_checkpoint(tmp_path / "ok.zip", metadata_for(game))
    agent = PPOAgent.load(path, game=game)
    state = game.new_state(1)
    assert state.legal_mask()[agent.act(state.observe(0), state.legal_mask())]


# -- metadata that is not an object, or incomplete --------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "holds a JSON list, not an object"),
    ('"hello"', "holds a JSON str, not an object"),
    ("{\"format\": 1}", "lacks 'game'"),
    ("not json", "corrupt meeplezoo.json"),
])
def test_metadata_that_is_not_a_complete_object_is_refused(tmp_path, text, message):
    path = write_checkpoint(tmp_path / "m.zip", metadata_for(ToyGame(2)), metadata_text=text)
    with pytest.raises(ValueError, match=message):
        read_metadata(path)


@pytest.mark.parametrize("key", ["game", "num_players", "options", "observation_version", "observation_size",
                                 "num_actions", "net_arch"])
def test_each_missing_metadata_key_is_named(tmp_path, key):
    meta = metadata_for(ToyGame(2))
    del meta[key]
    path = write_checkpoint(tmp_path / "m.zip", meta, arrays_for(metadata_for(ToyGame(2))))
    with pytest.raises(ValueError, match=f"lacks '{key}'"):
        PPOAgent.load(path)


def test_ill_typed_metadata_is_named(tmp_path):
    for key, value, message in [("num_players", "2", "'num_players' must be an integer"),
                                ("options", [], "'options' must be an object"),
                                ("net_arch", {"pi": [8, -1]}, "net_arch\\['pi'\\] must be a list of positive"),
                                ("activation", "sigmoid", "unsupported activation")]:
        meta = {**metadata_for(ToyGame(2)), key: value}
        path = write_checkpoint(tmp_path / "m.zip", meta, arrays_for(metadata_for(ToyGame(2))))
        with pytest.raises(ValueError, match=message):
            PPOAgent.load(path)


@pytest.mark.parametrize("text", ["[1, 2]", "{\"format\": 1, \"game\": \"kerala\"}"])
def test_cli_evaluate_and_arena_report_bad_metadata_in_one_line(tmp_path, capsys, text):
    from meeplezoo.cli import main

    path = write_checkpoint(tmp_path / "bad.zip", metadata_for(ToyGame(2)), metadata_text=text)
    assert main(["evaluate", path, "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.zip" in err and len(err.strip().splitlines()) == 1
    name = meeplezoo.list_envs()[0]
    assert main(["arena", name, "--agents", f"ppo:{path},random", "--games", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.zip" in err and len(err.strip().splitlines()) == 1


# -- weights that do not fit the network, or are not finite -----------------------------------------
def test_bias_of_the_wrong_length_is_refused_at_load(tmp_path):
    meta = metadata_for(ToyGame(2))
    arrays = arrays_for(meta)
    arrays["mlp_extractor.policy_net.0.bias"] = arrays["mlp_extractor.policy_net.0.bias"][:-1]
    path = write_checkpoint(tmp_path / "w.zip", meta, arrays)
    with pytest.raises(ValueError, match=r"'mlp_extractor.policy_net.0.bias' has shape \(7,\).*needs \(8,\)"):
        PPOAgent.load(path, game=ToyGame(2))


def test_weight_of_the_wrong_shape_and_missing_arrays_are_refused(tmp_path):
    meta = metadata_for(ToyGame(2))
    arrays = arrays_for(meta)
    arrays["action_net.weight"] = arrays["action_net.weight"].T.copy()
    with pytest.raises(ValueError, match="'action_net.weight' has shape"):
        PPOAgent.load(write_checkpoint(tmp_path / "a.zip", meta, arrays), game=ToyGame(2))
    arrays = arrays_for(meta)
    del arrays["action_net.bias"]
    with pytest.raises(ValueError, match="lack 'action_net.bias'"):
        PPOAgent.load(write_checkpoint(tmp_path / "b.zip", meta, arrays), game=ToyGame(2))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_refused_at_load(tmp_path, bad):
    meta = metadata_for(ToyGame(2))
    arrays = arrays_for(meta)
    arrays["features_extractor.net.0.weight"][3, 2] = bad
    path = write_checkpoint(tmp_path / "nan.zip", meta, arrays)
    with pytest.raises(ValueError, match="'features_extractor.net.0.weight' hold NaN or infinite"):
        PPOAgent.load(path, game=ToyGame(2))


# -- size caps and no pickles ---------------------------------------------------------------------
def test_decompression_bomb_is_refused_before_reading(tmp_path, monkeypatch):
    meta = metadata_for(ToyGame(2), arch=(256, 256))  # the compressed npz fits what this network may take
    arrays = arrays_for(meta)
    arrays["action_net.bias"] = np.zeros(50_000_000, dtype=np.float32)  # 200 MB of zeros
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    path = tmp_path / "bomb.zip"
    write_checkpoint(path, meta, weights=buf.getvalue())
    assert os.path.getsize(path) < 2_000_000
    reads = []
    real_read = zipfile.ZipFile.read

    def spy(self, name, *a, **k):
        reads.append(name)
        return real_read(self, name, *a, **k)

    monkeypatch.setattr(zipfile.ZipFile, "read", spy)
    with pytest.raises(ValueError, match="'action_net.bias' unpacks to 200000128 bytes, more than its shape"):
        PPOAgent.load(path, game=ToyGame(2))
    # the outer member (the compressed npz) is small; nothing of the bomb was unpacked beyond it
    assert reads == [METADATA_MEMBER, WEIGHTS_MEMBER]


def test_outer_member_larger_than_the_network_is_refused_unread(tmp_path, monkeypatch):
    meta = metadata_for(ToyGame(2))
    path = tmp_path / "big.zip"
    write_checkpoint(path, meta, weights=b"\0" * 20_000_000)  # deflates to a few kB
    assert os.path.getsize(path) < 200_000
    real_read = zipfile.ZipFile.read

    def no_weights(self, name, *a, **k):
        assert name != WEIGHTS_MEMBER, "the oversized member was read"
        return real_read(self, name, *a, **k)

    monkeypatch.setattr(zipfile.ZipFile, "read", no_weights)
    with pytest.raises(ValueError, match="meeplezoo_policy.npz unpacks to 20000000 bytes, but the network"):
        PPOAgent.load(path, game=ToyGame(2))


def test_metadata_describing_a_huge_network_is_refused(tmp_path):
    meta = metadata_for(ToyGame(2))
    meta["net_arch"] = {"features": [1 << 20], "pi": [1 << 20], "vf": []}
    path = write_checkpoint(tmp_path / "huge.zip", meta, weights=b"")
    with pytest.raises(ValueError, match="parameters, more than"):
        PPOAgent.load(path, game=ToyGame(2))


def test_huge_metadata_member_is_refused(tmp_path):
    meta = {**metadata_for(ToyGame(2)), "padding": " " * (2 << 20)}
    path = write_checkpoint(tmp_path / "m.zip", meta)
    with pytest.raises(ValueError, match="meeplezoo.json unpacks to"):
        read_metadata(path)


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))  # unpickling would create the marker file


def test_pickle_payload_in_a_checkpoint_is_not_run(tmp_path):
    marker = tmp_path / "pwned"
    meta = metadata_for(ToyGame(2))
    arrays = dict(arrays_for(meta))
    evil = np.empty(1, dtype=object)
    evil[0] = _Payload(str(marker))
    arrays["action_net.bias"] = evil
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # object arrays are pickled inside the .npy
    import pickle

    extra = {"data": pickle.dumps(_Payload(str(marker))), "policy.pth": pickle.dumps(_Payload(str(marker)))}
    path = write_checkpoint(tmp_path / "evil.zip", meta, weights=buf.getvalue(), extra=extra)
    with pytest.raises(ValueError, match="cannot load meeplezoo_policy.npz|dtype object"):
        PPOAgent.load(path, game=ToyGame(2))
    assert not marker.exists(), "a pickle inside the checkpoint was executed"


# -- rule options are checked wherever a checkpoint becomes an agent --------------------------------
def _hds_checkpoints(tmp_path):
    try:
        base_game = meeplezoo.make_game("haus_der_sonne", 2)
        tactical = meeplezoo.make_game("haus_der_sonne", 2, variant="tactical")
    except ImportError as e:
        pytest.skip(f"haus_der_sonne does not import: {e}")
    base = write_checkpoint(tmp_path / "base.zip", metadata_for(base_game))
    tac = write_checkpoint(tmp_path / "tactical.zip", metadata_for(tactical))
    return base, tac


def test_registry_with_a_game_object_checks_rule_options(tmp_path):
    base, _ = _hds_checkpoints(tmp_path)
    tactical = meeplezoo.make_game("haus_der_sonne", 2, variant="tactical")
    with pytest.raises(ValueError, match="variant='base' in the checkpoint, 'tactical' here"):
        meeplezoo.agents.make(f"ppo:{base}", tactical, num_players=2)
    assert isinstance(meeplezoo.agents.make(f"ppo:{base}", meeplezoo.make_game("haus_der_sonne", 2)), PPOAgent)
    assert meeplezoo.agents.make("random", tactical).name == "random"


def test_cli_play_arena_and_evaluate_check_the_variant(tmp_path, capsys):
    from meeplezoo.cli import main

    base, tac = _hds_checkpoints(tmp_path)
    for argv in (["play", "haus_der_sonne", "--variant", "tactical", "--agents", f"ppo:{base},random", "--quiet"],
                 ["arena", "haus_der_sonne", "--variant", "tactical", "--agents", f"ppo:{base},random",
                  "--games", "2", "--quiet"],
                 ["evaluate", base, "--against", f"ppo:{tac}", "--games", "2"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "trained with other rule options" in err and "variant=" in err, (argv, err)
    assert main(["play", "haus_der_sonne", "--agents", f"ppo:{base},random", "--quiet", "--seed", "1"]) == 0


def test_training_opponents_and_evaluation_opponents_check_the_variant(tmp_path):
    pytest.importorskip("sb3_contrib")
    from meeplezoo.training.ppo import evaluate, train

    base, tac = _hds_checkpoints(tmp_path)
    game = meeplezoo.make_game("haus_der_sonne", 2)
    with pytest.raises(ValueError, match="trained with other rule options"):
        train(game, None, opponents=f"ppo:{tac}:1", timesteps=16, out_dir=tmp_path / "run", tensorboard=False,
              verbose=0)
    with pytest.raises(ValueError, match="trained with other rule options"):
        train(game, None, opponents="random:1", eval_against=[f"ppo:{tac}"], timesteps=16,
              out_dir=tmp_path / "run", tensorboard=False, verbose=0)
    with pytest.raises(ValueError, match="trained with other rule options"):
        evaluate(PPOAgent.load(base), game, [f"ppo:{tac}"], games=2)
