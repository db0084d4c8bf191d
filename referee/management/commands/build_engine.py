"""Build the tablet's engine archive, catalogue and manifest into static/offline/ (see
``referee.offline_engine``); ``make setup`` and the Dockerfile run it before serving."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from referee import offline_engine


class Command(BaseCommand):
    help = "Build the rules engine archive the tablet runs under Pyodide (static/offline/)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", type=Path, default=offline_engine.OUTPUT, help="where to write")

    def handle(self, *args: Any, **options: Any) -> None:
        manifest = offline_engine.build(options["output"])
        self.stdout.write(f"engine {manifest['version']}: {options['output'] / manifest['archive']}")
        if manifest["pyodide"] is None:
            # The server referees as always; only the tablet's offline refereeing needs it.
            self.stderr.write(
                "build_engine: node_modules/pyodide is missing (run `npm ci`, as `make setup` does): "
                "the tablet cannot referee offline until it is there."
            )
