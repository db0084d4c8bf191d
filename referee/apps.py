from django.apps import AppConfig


class RefereeConfig(AppConfig):
    name = "referee"
    verbose_name = "Referee"

    def ready(self) -> None:
        # The watchers' poll cache hears of every change that its versions depend on.
        from . import poll_receivers

        poll_receivers.connect()
