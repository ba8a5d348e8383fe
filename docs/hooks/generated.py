"""MkDocs hook: the pages' generated parts, written from the code when the site is built.

- ``<!-- balance-cli: NAME -->`` becomes the reference of ``balance NAME``: its usage, help,
  arguments and options (with their defaults) and the examples of its ``--help`` epilog, read from
  the typer app's click command. The CLI's help is written once, in the code; the page only
  adds the narrative above it. Every command must have a page (else the build fails), so a new
  command cannot ship undocumented.
- ``<!-- balance-cli-table -->`` becomes a table of every command and the first paragraph of its
  help.
- ``<!-- balance-tree -->`` becomes the tree of the ``balance`` package, each module with the first
  sentence of its docstring, so the Architecture page lists the files that exist.
"""

from __future__ import annotations

import ast
import html
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
CLI = re.compile(r"<!-- balance-cli: ([a-z-]+) -->")
CLI_TABLE = "<!-- balance-cli-table -->"
TREE = "<!-- balance-tree -->"

_rendered: set[str] = set()


def on_config(config: Any) -> Any:
    # Build from a clone without installing it: the package next to mkdocs.yml is the one shown.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _rendered.clear()
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if CLI_TABLE in markdown:
        markdown = markdown.replace(CLI_TABLE, command_table())
    if TREE in markdown:
        markdown = markdown.replace(TREE, package_tree(ROOT / "balance"))

    def reference(m: re.Match[str]) -> str:
        _rendered.add(m.group(1))
        return command_reference(m.group(1))

    return CLI.sub(reference, markdown)


def on_post_build(config: Any) -> None:
    missing = sorted(set(_commands()) - _rendered)
    if missing:
        raise PluginError(
            "no docs page holds the reference of "
            + ", ".join(f"balance {name}" for name in missing)
            + ": add docs/commands/NAME.md with <!-- balance-cli: NAME -->"
            + " and list it in mkdocs.yml"
        )


# --- the command reference ------------------------------------------------------------------


def _group() -> tuple[Any, Any]:
    import typer

    from balance.cli import app

    group = typer.main.get_command(app)
    return group, group.context_class(group, info_name="balance")


def _commands() -> dict[str, Any]:
    group, ctx = _group()
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def _plain(text: str) -> str:
    """Typer's help is rich markup: ``\\[`` is a literal bracket."""
    return text.replace("\\[", "[")


def _md(text: str) -> str:
    """Help text as markdown that shows it literally: code spans kept, everything else escaped."""
    out = []
    for i, part in enumerate(re.split(r"(`[^`]*`)", _plain(text))):
        if i % 2:
            out.append(part)
        else:
            part = html.escape(part, quote=False)
            out.append(re.sub(r"([\\*_\[\]|])", r"\\\1", part))
    return "".join(out)


def command_table() -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for name, cmd in _commands().items():
        first = _plain(cmd.help or "").split("\n\n")[0].replace("\n", " ").strip()
        rows.append(f"| [`balance {name}`]({name}.md) | {_md(first)} |")
    return "\n".join(rows)


def command_reference(name: str) -> str:
    group, root = _group()
    cmd = group.get_command(root, name)
    if cmd is None:
        raise PluginError(f"<!-- balance-cli: {name} -->: balance has no command {name!r}")
    ctx = cmd.context_class(cmd, info_name=name, parent=root)
    lines = [
        f"## Reference: `balance {name}`",
        "",
        "Generated from the code when this site is built; "
        f"`balance {name} --help` prints the same.",
        "",
        "```text",
        cmd.get_usage(ctx),
        "```",
        "",
    ]
    for para in _plain(cmd.help or "").split("\n\n"):
        lines += [_md(" ".join(para.split())), ""]
    params = [p for p in cmd.get_params(ctx) if not getattr(p, "hidden", False)]
    for title, kind in (("Arguments", "argument"), ("Options", "option")):
        records = [
            p.get_help_record(ctx)
            for p in params
            if p.param_type_name == kind and "--help" not in getattr(p, "opts", ())
        ]
        records = [r for r in records if r]
        if not records:
            continue
        lines += [f"**{title}**", ""]
        for decl, help_ in records:
            lines.append(f"- `{_plain(decl)}`: {_md(' '.join(help_.split()))}")
        lines.append("")
    if cmd.epilog:
        head, *examples = [p.strip() for p in _plain(cmd.epilog).split("\n\n") if p.strip()]
        lines += [f"**{head.rstrip(':')}**", "", "```bash", *examples, "```", ""]
    return "\n".join(lines)


# --- the package tree -----------------------------------------------------------------------


def _summary(path: Path) -> str:
    """The first sentence of a module's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    para = " ".join(doc.split("\n\n")[0].split()).replace("``", "`")
    m = re.search(r"(?<=[a-z0-9`)])\. ", para)
    sentence = para[: m.start() + 1] if m else para
    return sentence if len(sentence) <= 96 else sentence[:95].rstrip() + "…"


def package_tree(package: Path) -> str:
    rows: list[tuple[str, str]] = []

    def walk(folder: Path, prefix: str) -> None:
        entries = sorted(
            p
            for p in folder.iterdir()
            if (p.is_dir() and (p / "__init__.py").is_file())
            or (p.suffix == ".py" and p.name != "__init__.py")
        )
        for i, p in enumerate(entries):
            last = i == len(entries) - 1
            branch, down = ("└── ", "    ") if last else ("├── ", "│   ")
            if p.is_dir():
                rows.append((f"{prefix}{branch}{p.name}/", _summary(p / "__init__.py")))
                walk(p, prefix + down)
            else:
                rows.append((f"{prefix}{branch}{p.name}", _summary(p)))

    rows.append((f"{package.name}/", _summary(package / "__init__.py")))
    walk(package, "")
    width = max(len(name) for name, _ in rows) + 2
    body = "\n".join(f"{name.ljust(width)}{summary}".rstrip() for name, summary in rows)
    return f"```text\n{body}\n```"
