"""MkDocs hooks of the documentation site (``mkdocs.yml`` ``hooks:``; built by ``bash scripts/docs.sh``).

What the site generates at build time, so that nothing is copied by hand and a moved module breaks nothing:

* the API reference: one page per module matched by :data:`API_REFERENCE` (the one list to edit), found
  by walking the package folders, each page a mkdocstrings ``:::`` directive, with its navigation;
* the generated parts of each game page, where the page holds a marker ``<!-- meeplezoo:KIND GAME -->``:
  ``facts`` (ids, player counts, versions), ``observations`` (the tables of ``scripts/observation_docs.py``),
  ``actions`` (the action space and sample action names) and ``options`` (every declared ``Option`` with its
  default and the rules-file section of the ASSUMPTION it decides);
* the notebooks (``notebooks/*.ipynb``, rendered with their stored outputs by mkdocs-jupyter);
* after the build, a check that every link of ``README.md`` into ``docs/`` lands on a built page or file.

mkdocstrings reads the sources statically (griffe); the package's folders are mapped (``meeplezoo.envs`` is
``envs/``, see ``setup.py``), so :func:`api_tree` lays out the package as it is imported, in symbolic links
under ``build/docs-api/``, and mkdocs.yml points the Python handler there.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import logging
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import markdown
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
API_DIR = ROOT / "build" / "docs-api"
log = logging.getLogger("mkdocs.hooks.meeplezoo")

#: The API reference: section title -> module patterns (``pkg`` the module itself, ``pkg.*`` its direct
#: submodules, ``pkg.**`` every module below it). Modules whose last name starts with ``_`` or ends with
#: ``_cli`` are left out. This is the one place that says which modules the reference documents.
API_REFERENCE: dict[str, list[str]] = {
    "meeplezoo": ["meeplezoo", "meeplezoo.registry", "meeplezoo.testing", "meeplezoo.openspiel"],
    "Environments and engine": ["meeplezoo.envs.core.*"],
    "Game entry modules": ["meeplezoo.envs.*_v0"],
    "Agents": ["meeplezoo.agents", "meeplezoo.agents.**"],
    "Training and leagues": ["meeplezoo.training", "meeplezoo.training.**"],
}
#: module patterns never documented (the template game is the model of docs/ADDING_A_GAME.md, not an API)
API_EXCLUDE = ["meeplezoo.envs.template*", "meeplezoo.cli", "meeplezoo.__main__"]

#: the package folders, as setup.py maps them
PACKAGE_DIR = {"meeplezoo": "meeplezoo", "meeplezoo.envs": "envs", "meeplezoo.agents": "agents",
               "meeplezoo.training": "training"}

MARKER = re.compile(r"<!--\s*meeplezoo:(\w+)\s+(\w+)\s*-->")
NOTEBOOKS = ROOT / "notebooks"
#: guides other parts of the project add: listed under Guides when their page exists
OPTIONAL_GUIDES = {"RLlib": "guides/rllib.md", "Web app (meeplezoo serve)": "guides/serve.md"}


# -- the API reference -------------------------------------------------------------------------------------
def api_tree() -> Path:
    """``build/docs-api/meeplezoo``: the package laid out as imported (symbolic links), for griffe."""
    pkg = API_DIR / "meeplezoo"
    if API_DIR.exists():
        shutil.rmtree(API_DIR)
    pkg.mkdir(parents=True)
    for entry in (ROOT / "meeplezoo").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for name, folder in PACKAGE_DIR.items():
        if name != "meeplezoo":
            (pkg / name.split(".", 1)[1]).symlink_to(ROOT / folder, target_is_directory=True)
    return pkg


def all_modules(pkg: Path) -> list[str]:
    """Every module name under the laid-out package."""
    out = []
    for folder, dirs, names in os.walk(pkg, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            parts = list((Path(folder) / n).relative_to(pkg.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append(".".join(parts))
    return sorted(out)


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".**"):
        return module.startswith(pattern[:-3] + ".")
    if pattern.endswith(".*"):
        base = pattern[:-2]
        return module.startswith(base + ".") and "." not in module[len(base) + 1:]
    return fnmatch.fnmatchcase(module, pattern)


def api_sections(modules: list[str]) -> dict[str, list[str]]:
    """:data:`API_REFERENCE` resolved against ``modules``: section -> modules, each documented once."""
    seen: set[str] = set()
    out: dict[str, list[str]] = {}
    for title, patterns in API_REFERENCE.items():
        found = []
        for m in modules:
            last = m.rsplit(".", 1)[-1]
            if m in seen or last.startswith("_") or last.endswith("_cli"):
                continue
            if any(fnmatch.fnmatchcase(m, x) for x in API_EXCLUDE):
                continue
            if any(_matches(m, p) for p in patterns):
                found.append(m)
                seen.add(m)
        out[title] = found
    return out


def _api_page(module: str) -> str:
    return f"# `{module}`\n\n::: {module}\n"


#: the entry points the reference's index names first (shown when their module is documented)
API_ENTRY_POINTS = {"meeplezoo.make": "meeplezoo", "Game and State": "meeplezoo.envs.core.game",
                    "the PettingZoo environment": "meeplezoo.envs.core.aec",
                    "the Gymnasium single-agent view": "meeplezoo.envs.core.gym",
                    "the agents' make": "meeplezoo.agents", "leagues": "meeplezoo.training.league"}


def _api_index(sections: dict[str, list[str]]) -> str:
    documented = {m for modules in sections.values() for m in modules}
    entries = ", ".join(f"[{title}]({m}.md)" for title, m in API_ENTRY_POINTS.items() if m in documented)
    lines = ["# API reference", "",
             "Generated from the docstrings at each build (mkdocstrings): one page per module, the modules chosen "
             "by the patterns of `API_REFERENCE` in `scripts/docs_hooks.py`.", ""]
    if entries:
        lines += [f"Where most programs start: {entries}.", ""]
    for title, modules in sections.items():
        lines += [f"## {title}", ""]
        lines += [f"- [`{m}`]({m}.md)" for m in modules]
        lines.append("")
    return "\n".join(lines)


# -- game pages --------------------------------------------------------------------------------------------
def _observation_docs():
    spec = importlib.util.spec_from_file_location("observation_docs", ROOT / "scripts" / "observation_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _facts(name: str) -> str:
    import meeplezoo
    from meeplezoo.registry import game_class, game_info

    info, cls = game_info(name), game_class(name)
    counts = range(cls.min_players, cls.max_players + 1)
    sizes = ", ".join(f"{n}: {meeplezoo.make_game(name, num_players=n).observation_shape[0]}" for n in counts)
    actions = ", ".join(f"{n}: {meeplezoo.make_game(name, num_players=n).num_actions}" for n in counts)
    rows = [
        ("registry id", f"`{name}`: `meeplezoo.make(\"{name}\")`"),
        ("entry module", f"`meeplezoo.envs.{cls.env_name}` (`env()`, `raw_env`, `Game`)"),
        ("PettingZoo / Gymnasium id", f"`{info.pettingzoo_id}`, also `meeplezoo/{cls.env_name}`"),
        ("players", f"{cls.min_players}-{cls.max_players} (default {cls.default_players})"
         if cls.max_players > cls.min_players else f"{cls.min_players}"),
        ("hidden information", "yes" if cls.hidden_information else "no (only the order of what is not yet drawn)"),
        ("observation version", f"{cls.observation_version}"),
        ("observation size (floats, by player count)", sizes),
        ("actions (`Discrete(n)`, by player count)", actions),
        ("heuristic agent", f"`{info.heuristic}`" if info.heuristic else "none"),
        ("rule options", f"{len(cls.options_spec)} (below)"),
    ]
    return "\n".join(["| fact | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def _actions(name: str) -> str:
    import inspect

    from meeplezoo.registry import game_class, make_game

    game = make_game(name)
    state = game.new_state(seed=0)
    legal = state.legal_actions()
    codec = importlib.import_module(f"{game_class(name).__module__.rpartition('.')[0]}.actions")
    lines = [f"The layout of the flat action ids, from the docstring of `{codec.__name__}`:", "",
             "```text", inspect.cleandoc(codec.__doc__ or "").replace("``", "`"), "```", "",
             f"At {game.num_players} players the action space is `Discrete({game.num_actions})`. At the start of "
             f"the game seeded 0, {len(legal)} actions are legal; the first of them, as "
             "`state.action_name(a)` names them (`text_infos=True` puts the legal ones' names into each step's "
             "infos):", "", "| action | name |", "|---:|---|"]
    lines += [f"| {a} | `{state.action_name(a)}` |" for a in legal[:6]]
    return "\n".join(lines)


def _rules_anchors(name: str, config: Any) -> tuple[list[tuple[int, str, str]], list[str]]:
    """The headings of ``docs/rules/<name>.md`` as (line, text, anchor), with the file's lines."""
    text = (ROOT / "docs" / "rules" / f"{name}.md").read_text()
    md = markdown.Markdown(extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"])
    md.convert(text)
    flat: list[tuple[str, str]] = []

    def walk(tokens):
        for t in tokens:
            flat.append((t["name"], t["id"]))
            walk(t["children"])

    walk(md.toc_tokens)
    lines = text.splitlines()
    headings = []
    fence = False
    k = 0
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and re.match(r"#{1,6} ", line) and k < len(flat):
            headings.append((i, flat[k][0], flat[k][1]))
            k += 1
    return headings, lines


def _rule_link(ref: str, headings: list[tuple[int, str, str]], lines: list[str]) -> str | None:
    """The anchor of the rules-file section that decides ``ref`` (``A-09`` or ``§3.1``)."""
    if ref.startswith("§"):
        num = ref[1:]
        while num:
            for _, text, anchor in headings:
                if re.match(rf"{re.escape(num)}\.?\s", text):
                    return anchor
            num = num.rpartition(".")[0]
        return None
    word = re.compile(rf"\b{re.escape(ref)}\b")
    for _, text, anchor in headings:
        if word.search(text):
            return anchor
    for i, line in enumerate(lines):
        if word.search(line):
            before = [h for h in headings if h[0] <= i]
            return before[-1][2] if before else None
    return None


def _allowed(o: Any) -> str:
    if o.choices is not None:
        return ", ".join(f"`{c!r}`" for c in o.choices)
    kind = o.type if o.type is not None else type(o.default)
    names = kind.__name__ if isinstance(kind, type) else " / ".join(t.__name__ for t in kind)
    if o.bounds is not None:
        lo, hi = o.bounds
        return f"{names} in [{'' if lo is None else lo}, {'' if hi is None else hi}]"
    return names


def _options(name: str, config: Any) -> str:
    from meeplezoo.registry import game_class

    cls = game_class(name)
    headings, lines = _rules_anchors(name, config)
    rows = ["| option | default | allowed | what it decides | rules |", "|---|---|---|---|---|"]
    for o in cls.options_spec:
        refs = re.findall(r"A-\d+[a-z]?|§\d+(?:\.\d+)*", o.doc)
        links = []
        for ref in dict.fromkeys(refs):
            anchor = _rule_link(ref, headings, lines)
            links.append(f"[{ref}](../rules/{name}.md#{anchor})" if anchor else ref)
        if not refs:  # the first section of the rules file that names the option
            anchor = _rule_link(o.name, headings, lines)
            if anchor:
                links.append(f"[rules](../rules/{name}.md#{anchor})")
        doc = o.doc.replace("|", "\\|")
        if o.observation_only:
            doc += " *(observation only: the rules are unchanged)*"
        rows.append(f"| `{o.name}` | `{o.default!r}` | {_allowed(o)} | {doc} | {', '.join(links)} |")
    return "\n".join(rows)


def _generated(kind: str, name: str, config: Any) -> str:
    if kind == "facts":
        return _facts(name)
    if kind == "observations":
        return _observation_docs().game_sections(name)
    if kind == "actions":
        return _actions(name)
    if kind == "options":
        return _options(name, config)
    raise ValueError(f"unknown generated section {kind!r}")


# -- hooks -------------------------------------------------------------------------------------------------
_sections: dict[str, list[str]] = {}


@event_priority(100)
def on_config(config: Any, **kwargs: Any) -> Any:
    sys.path.insert(0, str(ROOT))
    global _sections
    _sections = api_sections(all_modules(api_tree()))
    reference = ["reference/index.md"] + [
        {title: [{m: f"reference/{m}.md"} for m in modules]} for title, modules in _sections.items() if modules]
    notebooks = [{nb.stem: f"notebooks/{nb.name}"} for nb in sorted(NOTEBOOKS.glob("*.ipynb"))]
    for i, item in enumerate(config["nav"]):
        if isinstance(item, dict) and "API reference" in item:
            config["nav"][i] = {"API reference": reference}
        if isinstance(item, dict) and "Notebooks" in item:
            config["nav"][i] = {"Notebooks": notebooks}
        if isinstance(item, dict) and "Guides" in item:
            listed = {next(iter(g.values())) for g in item["Guides"] if isinstance(g, dict)}
            item["Guides"] += [{title: path} for title, path in OPTIONAL_GUIDES.items()
                               if path not in listed and (ROOT / "docs" / path).exists()]
    return config


@event_priority(100)
def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    files.append(File.generated(config, "reference/index.md", content=_api_index(_sections)))
    for modules in _sections.values():
        for m in modules:
            files.append(File.generated(config, f"reference/{m}.md", content=_api_page(m)))
    for nb in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(File(f"notebooks/{nb.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


SOURCE_TAGS = re.compile(r"\[(?=[A-Za-z0-9*\- ]{1,12}\](?![(:]))")


def _escape_source_tags(text: str) -> str:
    """The rules files cite their sources as ``[R]``, ``[R][T]``, which Markdown would read as reference
    links: their brackets are escaped outside code."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence:
            parts = line.split("`")
            line = "`".join(SOURCE_TAGS.sub(r"\\[", p) if i % 2 == 0 else p for i, p in enumerate(parts))
        out.append(line)
    return "\n".join(out)


def on_page_markdown(text: str, page: Any, config: Any, **kwargs: Any) -> str:
    if page.file.src_uri.startswith("rules/"):
        text = _escape_source_tags(text)
    return MARKER.sub(lambda m: _generated(m.group(1), m.group(2), config), text)


SPHINX_ROLE = re.compile(r":(?:class|meth|attr|func|data|mod|exc|obj):(<code>)(~?)([\w.]+)")


def _role(m: re.Match) -> str:
    return m.group(1) + (m.group(3).rsplit(".", 1)[-1] if m.group(2) else m.group(3))


def on_page_content(html: str, page: Any, config: Any, **kwargs: Any) -> str:
    """Docstrings cross-reference in Sphinx's roles (``:class:`~meeplezoo.envs.core.rng.Rng```): shown as
    code, with ``~`` keeping the last name only, as Sphinx would."""
    if page.file.src_uri.startswith("reference/"):
        html = SPHINX_ROLE.sub(_role, html)
    return html


README_LINK = re.compile(r"\]\((docs/[^)#\s]+)(#[^)\s]*)?\)|src=\"(docs/[^\"]+)\"")


def on_post_build(config: Any, **kwargs: Any) -> None:
    """Every link of README.md into docs/ must land on something the site built."""
    site = Path(config["site_dir"])
    readme = (ROOT / "README.md").read_text()
    targets = [m.group(1) or m.group(3) for m in README_LINK.finditer(readme)]
    if not targets:
        log.warning("README.md has no link into docs/")
    for target in targets:
        rel = target[len("docs/"):]
        built = site / (rel[:-3] + ".html" if rel.endswith(".md") else rel)
        if not (ROOT / target).exists():
            log.warning("README.md links to %s, which does not exist", target)
        elif not built.exists():
            log.warning("README.md links to %s, which the site does not build (%s)", target, built)
