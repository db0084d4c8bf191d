from django.apps import AppConfig


class EveningsConfig(AppConfig):
    name = "evenings"
    verbose_name = "Club nights"

    def ready(self) -> None:
        from referee import signals

        from . import receivers

        signals.seat_corrected.connect(receivers.seat_corrected, dispatch_uid="evenings.seat_corrected")
