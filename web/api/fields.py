"""Request fields that take only the JSON type the schema names.

DRF's fields are lenient for HTML forms' sake: an integer field takes ``"1"``, a boolean
field ``"yes"``, a text field ``17``, a decimal field ``1.5``. The schema promises clients
(and generated clients) one type per field, and a request the schema calls invalid must be
refused, so in a JSON body these fields take that type only. A form-encoded body (every
value text) keeps DRF's reading.
"""

from __future__ import annotations

import re
from typing import Any

from django.http import QueryDict
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty


class ExactQueryValue(serializers.Field):
    """For query parameters: DRF reads an empty value (``?club=``) as "not given", which the
    schema does not say; here it is the value given, and refused like any other bad value."""

    def get_value(self, dictionary: Any) -> Any:
        return dictionary.get(self.field_name, empty)


class QuerySlugField(ExactQueryValue, serializers.SlugField):
    pass


class QueryChoiceField(ExactQueryValue, serializers.ChoiceField):
    pass


class QueryIntegerField(ExactQueryValue, serializers.IntegerField):
    pass


def _from_json(field: serializers.Field[Any, Any, Any, Any]) -> bool:
    return not isinstance(getattr(field.root, "initial_data", None), QueryDict)


class IntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if _from_json(self) and (isinstance(data, bool) or not isinstance(data, int)):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class BooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if _from_json(self) and not isinstance(data, bool):
            self.fail("invalid", input=data)
        return bool(super().to_internal_value(data))


class CharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if _from_json(self) and not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class _TextNotBlank(OpenApiSerializerFieldExtension):
    """Text that is trimmed and may not be blank needs a character that is not a space: the
    schema says so with a pattern, as DRF's ``minLength: 1`` alone lets ``" "`` through."""

    target_class = CharField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction == "request" and self.target.trim_whitespace and not self.target.allow_blank:
            # \x1c-\x1f are whitespace to str.strip(); some regex engines' \S lets them through.
            schema.setdefault("pattern", r"[^\s\x1c-\x1f]")
        return schema


class ChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data: Any) -> Any:
        if _from_json(self) and not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class SlugField(serializers.SlugField):
    def to_internal_value(self, data: Any) -> str:
        if _from_json(self) and not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class RegexField(serializers.RegexField):
    def to_internal_value(self, data: Any) -> str:
        if _from_json(self) and not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


def _money_field(pattern: str, example: str) -> type[serializers.DecimalField]:
    """A DecimalField that takes an amount written as text (``"0.50"``), never a JSON number (a
    float loses cents), matching ``pattern``: the schema's pattern is the whole rule (DRF's own
    allows ``""`` and ``"."``, which it then refuses)."""

    @extend_schema_field({"type": "string", "format": "decimal", "pattern": pattern, "example": example})
    class MoneyField(serializers.DecimalField):
        default_error_messages = {"not_text": f'Give an amount as text, e.g. "{example}".'}

        def validate_empty_values(self, data: Any) -> Any:
            # DRF reads "" as null where null is allowed; the schema's pattern refuses "".
            if _from_json(self) and data == "":
                self.fail("not_text")
            return super().validate_empty_values(data)

        def to_internal_value(self, data: Any) -> Any:
            if _from_json(self) and not isinstance(data, str):
                self.fail("not_text")
            self._text = data
            return super().to_internal_value(data)

        def run_validators(self, value: Any) -> None:
            super().run_validators(value)  # DRF's own messages first ("-1" is below the minimum)
            if _from_json(self) and not re.fullmatch(pattern, getattr(self, "_text", "")):
                self.fail("not_text")

    return MoneyField


#: A stake: 0 or more, at most 8 digits before the point and 2 after.
StakeField = _money_field(r"^\d{1,8}(\.\d{1,2})?$", "0.50")
#: The smallest coin: more than 0, at most 4 digits before the point and 2 after.
CoinField = _money_field(r"^(?!0*(\.0*)?$)\d{1,4}(\.\d{1,2})?$", "0.05")
#: An amount of money handed over: more than 0, at most 8 digits before the point and 2 after.
AmountField = _money_field(r"^(?!0*(\.0*)?$)\d{1,8}(\.\d{1,2})?$", "5.00")
