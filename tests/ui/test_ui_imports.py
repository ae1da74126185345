"""The fairness_dashboard package's import graph, read with ast (imports at the top of a module and inside functions
alike): no cycle among its modules nor among its subpackages, which import each other in one order; each page imports
a few of its parts; it and the pages import only public fairness_core names, Streamlit's internals are used in
fairness_dashboard.streamlit_internals alone, and the app never imports the namespaces kept for the tests' bodies."""

import ast
from pathlib import Path

from tests.support import ROOT

UI = ROOT / "fairness_dashboard"
INTERNALS = "fairness_dashboard.streamlit_internals"
# The subpackages, each importing only those before it (the top-level modules, navigation, launch, local_paths and
# streamlit_internals, sit between them: the whole graph is checked for cycles).
SUBPACKAGES = ("session", "presentation", "data", "results", "settings", "sections")
MAX_PARTS = 6   # the subpackages and top-level modules of fairness_dashboard that one page may import
# What only fairness_dashboard.streamlit_internals may touch: Streamlit's internal modules, and its internal names and attributes.
INTERNAL_MODULES = ("streamlit.runtime", "streamlit.logger", "streamlit.web", "streamlit.elements",
                    "streamlit.proto", "streamlit.config", "streamlit.delta_generator")
INTERNAL_NAMES = {"AppSession", "PagesManager", "Runtime", "ScriptRunContext", "get_script_run_ctx",
                  "uploaded_file_mgr", "get_app_session", "is_active_session", "close_session",
                  "remove_session_files", "uses_pages_directory", "get_instance"}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imports(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in `path`, top-level or not; ``from . import x`` names ``fairness_dashboard.x``."""
    package = module_name(path).rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            out.append((base, node.lineno))
            out += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return out


def ui_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(UI.rglob("*.py")) if p.name != "__init__.py"}


def graph() -> dict[str, set[str]]:
    modules = ui_modules()
    return {name: {m for m, _ in imports(path) if m in modules and m != name} for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), and modules importing themselves."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges[v]:
                out.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def app_files() -> list[Path]:
    return [*sorted(UI.rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]


def part(module: str) -> str:
    """The part of fairness_dashboard that `module` belongs to: its subpackage, or the top-level module itself."""
    return module.split(".")[1]


def parts_graph() -> dict[str, set[str]]:
    """The module graph collapsed onto the parts: an edge from each part to every other part it imports."""
    edges: dict[str, set[str]] = {}
    for name, deps in graph().items():
        edges.setdefault(part(name), set()).update(part(d) for d in deps if part(d) != part(name))
    return edges


def page_parts(path: Path) -> set[str]:
    return {part(name) for name, _ in imports(path) if name.startswith("fairness_dashboard.")}


def test_the_import_walk_finds_imports_inside_functions():
    edges = graph()
    assert "fairness_dashboard.data.analysis" in edges["fairness_dashboard.data.loading"] and "fairness_dashboard.session.memo" in edges["fairness_dashboard.navigation"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_ui_modules_form_no_import_cycle():
    assert cycles(graph()) == []


def test_the_subpackages_import_each_other_in_one_order_with_no_cycle():
    edges = parts_graph()
    assert set(SUBPACKAGES) | {"launch", "local_paths", "navigation", "streamlit_internals"} == set(edges)
    assert cycles(edges) == []
    later = {pkg: {dep for dep in edges[pkg] if dep in SUBPACKAGES[i:]} for i, pkg in enumerate(SUBPACKAGES)}
    assert later == {pkg: set() for pkg in SUBPACKAGES}
    assert edges["sections"] >= {"settings", "results", "data", "presentation", "session"}


def test_each_page_imports_a_few_parts_of_fairness_dashboard():
    pages = {path.name: page_parts(path) for path in sorted((ROOT / "pages").glob("*.py"))}
    assert len(pages) == 10
    assert pages["overview.py"] == {"data", "presentation", "results", "sections", "session", "settings"}
    assert pages["definitions.py"] == {"presentation", "settings"}
    assert {name: sorted(parts) for name, parts in pages.items() if len(parts) > MAX_PARTS} == {}


def test_ui_and_pages_import_only_public_fairness_core_names():
    private = [f"{path.relative_to(ROOT)}:{line} {name}" for path in app_files() for name, line in imports(path)
               if name.split(".")[0] == "fairness_core" and any(part.startswith("_") for part in name.split("."))]
    assert private == []


def test_only_streamlit_internals_touches_streamlits_internals():
    found = []
    for path in app_files():
        if module_name(path) == INTERNALS:
            continue
        for name, line in imports(path):
            if name.startswith(INTERNAL_MODULES) or name.split(".")[-1] in INTERNAL_NAMES:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            attribute = node.attr if isinstance(node, ast.Attribute) else None
            if attribute in INTERNAL_NAMES or (attribute or "").startswith("_session_mgr"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses .{attribute}")
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "st"
                    and node.attr.startswith("_")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses st.{node.attr}")
    assert found == []


def test_every_ui_module_is_at_most_about_500_lines():
    long = {name: n for name, path in ui_modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 540}
    assert long == {}
