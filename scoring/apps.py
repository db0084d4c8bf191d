from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # Imported here, once the models are loaded: the wiring of the whole app. Importing
        # the task modules also registers their tasks with Celery where only ``scoring.tasks``
        # is autodiscovered.
        from referee import signals as referee
        from scoring import background, receivers, tasks
        from scoring.ratings import tasks as rating_tasks

        referee.deal_finished.connect(receivers.deal_finished, dispatch_uid="scoring.deal_finished")
        referee.deal_reopened.connect(receivers.deal_reopened, dispatch_uid="scoring.deal_reopened")
        referee.session_closed.connect(receivers.session_closed, dispatch_uid="scoring.session_closed")
        referee.session_reopened.connect(receivers.session_reopened, dispatch_uid="scoring.session_reopened")
        background.summary_requested.connect(tasks.summary_requested, dispatch_uid="scoring.summary_requested")
        background.ratings_due.connect(rating_tasks.request_settle, dispatch_uid="scoring.ratings_due")
