"""No function of the library or the Snakemake scripts takes more than MAX_PARAMETERS parameters: a wider
call is a bag of loose values (one call used to pass `0.0, 0, None` positionally), and the cure is a small
frozen input dataclass that names them, not **kwargs."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_PARAMETERS = 8


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, in_class: bool) -> int:
    """Positional and keyword-only parameters, `*args` and `**kwargs` one each; a method's self/cls not."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if in_class and names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + len(args.kwonlyargs) + (args.vararg is not None) + (args.kwarg is not None)


def wide_functions(path: Path) -> list[str]:
    found = []

    def visit(node, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                n = parameter_count(child, in_class)
                if n > MAX_PARAMETERS:
                    found.append(f"{path.relative_to(ROOT)}:{child.lineno} {getattr(child, 'name', 'lambda')} "
                                 f"takes {n}")
            visit(child, isinstance(child, ast.ClassDef))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_the_counter_counts_what_the_rule_says():
    tree = ast.parse("class C:\n    def m(self, a, /, b, *rest, c, **more): pass\ndef f(self, a): pass\n")
    method = tree.body[0].body[0]
    assert parameter_count(method, in_class=True) == 5  # a, b, *rest, c, **more
    assert parameter_count(tree.body[1], in_class=False) == 2  # a plain function's `self` is a parameter


def test_no_function_takes_more_than_eight_parameters():
    files = sorted([*(ROOT / "src" / "lyss").rglob("*.py"), *(ROOT / "scripts").glob("*.py")])
    assert len(files) > 50
    wide = [line for path in files for line in wide_functions(path)]
    assert wide == [], "use a frozen input dataclass:\n" + "\n".join(wide)
