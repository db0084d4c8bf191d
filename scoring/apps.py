from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # Register the rating task with Celery even where only ``scoring.tasks`` is autodiscovered.
        from . import rating_tasks  # noqa: F401
