"""The pipeline's house rules, checked on its own source (standard library only): no module edits
the import path (the entry scripts import `pipeline` from their own folder, the tests through
unittest's discovery), and no function or class is longer than 250 lines, so that a stage stays
a module of definitions one can read rather than one class carrying everything.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import ast
import unittest

from pipeline import FACTS

LONGEST = 250


def python_files():
    return sorted(FACTS.rglob("*.py"))


class Layout(unittest.TestCase):
    def test_the_folder_has_modules_to_check(self):
        names = {p.relative_to(FACTS).as_posix() for p in python_files()}
        self.assertLessEqual({"build.py", "sync.py", "fetch.py", "report.py", "pipeline/builder.py"}, names)

    def test_no_module_edits_the_import_path(self):
        for path in python_files():
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys":
                    self.fail(f"{path.relative_to(FACTS)}:{node.lineno} uses sys.path")

    def test_no_definition_is_longer_than_250_lines(self):
        for path in python_files():
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                    length = node.end_lineno - start + 1
                    self.assertLessEqual(length, LONGEST, f"{path.relative_to(FACTS)}:{start} {node.name}")


if __name__ == "__main__":
    unittest.main()
