"""The admin's sign-in, rate-limited as the site's own (the models' admin pages are each app's)."""

from django.contrib import admin

from web.pages.login import rate_limit_admin_login

rate_limit_admin_login(admin.site)
