DROP TABLE url_redirects;
