"""What ``compare`` prints and writes: the table, results.md, .json and .png."""

from __future__ import annotations

from skattn._cli._output import check_folder_exists
from skattn._cli._parser import QUICK_SUMMARY

#: The files a run writes into ``--output``.
RESULT_FILES = ("results.md", "results.json", "results.png")


def check_results_folder(args) -> None:
    """Refuse, before any training, an --output that cannot be the results folder.

    That is: a file, a folder inside one that does not exist (the results
    folder is created, not its parents), or, without --force, a folder
    holding an earlier run's files.
    """
    if args.output is None:
        return
    if args.output.exists() and not args.output.is_dir():
        raise NotADirectoryError(
            f"--output {args.output} is a file; compare writes its results ("
            f"{', '.join(RESULT_FILES)} and the attention pages) into a folder: give the "
            "path of a folder (created if missing)."
        )
    check_folder_exists(args.output)
    existing = [name for name in RESULT_FILES if (args.output / name).exists()]
    if existing and not args.force:
        raise FileExistsError(
            f"{args.output} holds the results of an earlier run ({', '.join(existing)}); "
            "--force overwrites them, or choose another --output."
        )


def first_line(args, task) -> str:
    """The report's first line: the run, and whether it was a quick one."""
    line = f"{args.dataset}, task {task.name}"
    if args.quick:
        return f"{line}, QUICK RUN (--quick: {QUICK_SUMMARY})"
    return f"{line}, full run"


def attention_renderer(args, reports: dict, erasable: bool, target_names=None):
    """``on_last_fold``: each attention model's faithfulness (into ``reports``) and its page."""
    from skattn.compare import FAITHFULNESS_METHODS, save_attention_page
    from skattn.explain._faithfulness import faithfulness_report

    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)

    def render(name, model, X_test, y_test):
        # The erasure test reads single texts; pairs are explained by attention only.
        if args.faithfulness and hasattr(model, "explain") and erasable:
            reports[name] = faithfulness_report(
                model, list(X_test[: args.faithfulness]), FAITHFULNESS_METHODS, reference=False
            )
        if args.output:
            page = save_attention_page(
                model,
                X_test,
                y_test,
                args.output / f"attention_{name}.html",
                target_names=target_names,
            )
            if page is not None:
                print(f"{name}: attention of 8 test documents in {page}", flush=True)

    return render


def report(args, task, results, table: str, reports: dict, measure, **metadata) -> int:
    """Print the table (and faithfulness); write results.md, .json and .png to --output."""
    from skattn.compare import faithfulness_section, format_json
    from skattn.utils._archives import atomic_write

    faithfulness = faithfulness_section(reports)
    if faithfulness:
        table += "\n\n" + faithfulness
    text = first_line(args, task) + "\n\n" + table
    print(text)
    if not args.output:
        return 0
    with atomic_write(args.output / "results.md") as handle:
        handle.write(text + "\n")
    document = format_json(
        results,
        dataset=args.dataset,
        task=task.name,
        task_reason=task.reason,
        quick=args.quick,
        **({"quick_settings": QUICK_SUMMARY} if args.quick else {}),
        seed=args.seed,
        **metadata,
        faithfulness={name: report.rows for name, report in reports.items()},
    )
    with atomic_write(args.output / "results.json") as handle:
        handle.write(document)
    if measure is not None:
        _chart(args, results, metadata["split"], measure)
    print(f"results in {args.output}/")
    return 0


def _chart(args, results, split: str, measure: str) -> None:
    from skattn.compare import plot_results

    title = f"{args.dataset}, {split}" + (" (quick run)" if args.quick else "")
    try:
        plot_results(results, args.output / "results.png", title, measure=measure)
    except ImportError:
        print("matplotlib is not installed: no chart (pip install 'skattn[plot]')")
