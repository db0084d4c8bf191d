from django.apps import AppConfig


class WebConfig(AppConfig):
    """The top floor: the pages, the REST API, the urls and the club's exports. It reads and writes
    through the services and selectors of the apps below and is imported by none of them."""

    name = "web"
    verbose_name = "Web"

    def ready(self) -> None:
        # The watchers' poll cache hears of every change that its versions depend on.
        from . import poll_receivers

        poll_receivers.connect()
