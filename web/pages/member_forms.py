"""The forms of the club's own administration: a member's name and role, an invitation's
code as typed, and the new user's username and password (Django's own checks for those)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.forms.utils import ErrorDict
from django.utils.translation import gettext_lazy as _

from referee.invitations import CODE_LENGTH, normalised
from referee.models import Member, Role


def first_messages(form: forms.BaseForm) -> dict[str, str]:
    """One message per field (``form`` for the whole form), as the pages show them beside it."""
    errors: ErrorDict = form.errors if form.is_bound else ErrorDict()
    return {("form" if name == "__all__" else name): str(messages[0]) for name, messages in errors.items()}


class MemberForm(forms.Form):
    """A member's name and role: adding one, or changing one (``member`` given)."""

    name = forms.CharField(label=_("Name"), max_length=60, error_messages={
        "required": _("A member needs a name."),
        "max_length": _("A name can be at most %(limit_value)d characters long."),
    })
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, error_messages={
        "required": _("Choose one of the roles."), "invalid_choice": _("Choose one of the roles."),
    })

    def __init__(self, data: Any = None, *, club_id: int, member: Member | None = None) -> None:
        initial = {"name": member.name, "role": member.role} if member else {"role": Role.MEMBER}
        super().__init__(data, initial=initial)
        self.club_id = club_id
        self.member = member

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        taken = Member.objects.filter(club_id=self.club_id, name__iexact=name)
        if self.member is not None:
            taken = taken.exclude(pk=self.member.pk)
        if taken.exists():
            raise forms.ValidationError(_("%(name)s is already a member of this club.") % {"name": name})
        return name

    def value(self, name: str) -> str:
        """What the field shows: as posted, else as stored."""
        return str(self[name].value() or "")


class InvitationCodeForm(forms.Form):
    code = forms.CharField(label=_("Invitation code"), max_length=40, error_messages={
        "required": _("Type the code from your invitation, e.g. KQ7MX-4TRAH."),
    })

    def clean_code(self) -> str:
        code = normalised(self.cleaned_data["code"])
        if len(code) != CODE_LENGTH:
            raise forms.ValidationError(_("An invitation code has %(count)d letters and digits, e.g. KQ7MX-4TRAH.")
                                        % {"count": CODE_LENGTH})
        return f"{code[:5]}-{code[5:]}"


class NewSignInForm(UserCreationForm):
    """Username and password twice, checked as Django checks a new user (taken names, the
    password validators, the two passwords equal); the invitation service creates the user."""
