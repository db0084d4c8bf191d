from django.apps import AppConfig


class EveningsConfig(AppConfig):
    name = "evenings"
    verbose_name = "Club nights"
