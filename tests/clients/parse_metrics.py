#!/usr/bin/env python3
"""Reads a Prometheus text exposition on stdin with prometheus_client's own parser.

    parse_metrics.py < metrics.txt

Prints the families as JSON: `[{"name", "type", "help", "samples": [{"name",
"labels", "value"}]}]`. The parser raises on anything that is not the text
format, and so this script fails.
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    families = [
        {
            "name": family.name,
            "type": family.type,
            "help": family.documentation,
            "samples": [
                {"name": s.name, "labels": s.labels, "value": s.value}
                for s in family.samples
            ],
        }
        for family in text_string_to_metric_families(sys.stdin.read())
    ]
    json.dump(families, sys.stdout)


if __name__ == "__main__":
    main()
