DROP TABLE email_settings;
DROP TABLE form_submissions;
