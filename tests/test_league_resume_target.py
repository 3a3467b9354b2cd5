"""``league run --resume`` on a league that stores no target asks for ``--matches`` instead of playing nothing."""

from __future__ import annotations

from meeplezoo.training.league import LeagueConfig, open_league, read_league


def test_resume_without_a_stored_target_says_so_and_fails(tmp_path, capsys):
    from meeplezoo.cli import main

    db = str(tmp_path / "api.sqlite")
    # opened through the Python API and closed: the configuration is stored, no target
    open_league(db, LeagueConfig(game="kerala", agents=["a=random", "b=random"], seed=1)).close()
    assert main(["league", "run", "--db", db, "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "stores no target" in err and "--matches N" in err
    # given a target, the same league plays to it
    assert main(["league", "run", "--db", db, "--resume", "--matches", "2", "--quiet"]) == 0
    capsys.readouterr()
    assert len(read_league(db)[1]) == 2 and read_league(db)[2] == 2
    assert main(["league", "run", "--db", db, "--resume", "--quiet"]) == 0  # the target is now stored
