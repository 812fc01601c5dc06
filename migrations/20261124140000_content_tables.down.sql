DROP TABLE articles;
DROP TABLE pages;
DROP TABLE domains;
