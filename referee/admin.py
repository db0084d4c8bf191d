from django.contrib import admin

from .models import Club, Deal, DealChange, Entry, Member, Seat, Session


class MemberInline(admin.TabularInline):
    model = Member
    extra = 0
    fields = ["name", "user", "role", "active"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "public_leaderboard", "currency"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MemberInline]


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["name", "club", "role", "user", "active"]
    list_filter = ["club", "role", "active"]
    search_fields = ["name"]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "club", "game", "status", "stake", "created_at"]
    list_filter = ["club", "game", "status"]
    inlines = [SeatInline]


class EntryInline(admin.TabularInline):
    """Entries are append-only: visible here, never editable."""

    model = Entry
    extra = 0
    can_delete = False
    readonly_fields = ["seq", "payload", "result", "author", "created_at", "idempotency_key", "active"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ["id", "session", "number", "dealer", "seq", "status"]
    list_filter = ["status", "session__game"]
    readonly_fields = ["state", "seq"]
    inlines = [EntryInline]


@admin.register(DealChange)
class DealChangeAdmin(admin.ModelAdmin):
    list_display = ["deal", "kind", "author", "created_at"]
    readonly_fields = ["deal", "kind", "replaced", "replacement", "author", "created_at"]
