# Rating steps after commit: the queue of deals waiting for their stream, and each step's place in the stream.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('referee', '0001_initial'),
        ('scoring', '0004_day_and_all_time_aggregates'),
    ]

    operations = [
        migrations.AddField(
            model_name='ratingupdate',
            name='finished_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name='RatingEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('game', models.CharField(max_length=10)),
                ('finished_at', models.DateTimeField()),
                ('reopened', models.BooleanField(default=False)),
                ('club', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='referee.club')),
                ('deal', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='referee.deal')),
            ],
            options={
                'indexes': [models.Index(fields=['club', 'game', 'id'], name='rating_event_stream')],
            },
        ),
    ]
